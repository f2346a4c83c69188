// How a command's arguments are laid out (Part, CommandSpec), the option
// types the methods share, the signatures written by hand
// (HandWrittenCommands), and buildCall, which lays out one call's arguments.
// The layouts themselves are in table.ts and the other signatures in
// methods.ts (ZkitCommands), both generated from docs/commands.json by
// scripts/gen/gen-clients.py.
//
// How to add a command:
// 1. Declare it in the module; `ZKIT_REGENERATE=1 cargo test --lib reference`
//    writes docs/commands.json, then `python3 scripts/gen/gen-clients.py` writes
//    table.ts, replies.ts (its reply type and parser, from the declaration's
//    reply shape) and methods.ts (its signature: the positional parameters in
//    layout order, then an options object named after the tokens). A
//    signature the generator cannot give is written in HandWrittenCommands
//    below and named in gen-clients.py's NODE_HAND_METHODS.
// 2. Call it in test/every-command.mjs (test/commands.test.mjs checks that
//    every entry of COMMANDS was called).
// The Zkit wrapper, the node-redis module, routing, ioredis keyPrefix and
// the same-slot check all read the table, so nothing else changes.

import type {
  Job,
  MergeStep,
  RateResult,
  RatedJobs,
  RatedTasks,
  Task,
  Text,
  TotalRank,
} from './replies';

export type Arg = string | Buffer | number;
export type Key = string | Buffer;

type Field = { name: string; isKey: boolean };

export type Part =
  | { kind: 'key' } // a positional key
  | { kind: 'arg' } // a positional value
  | { kind: 'keys' } // a non-empty array of keys, sent as `numkeys key...`
  | { kind: 'args'; token: string } // one value or a non-empty array, sent as `TOKEN value...`: every argument after TOKEN is a value
  // A non-empty array of objects with these fields, sent flat in field order; with `inline`, one block may be given as its fields, as parameters
  | { kind: 'blocks'; fields: string[]; inline?: boolean }
  // `TOKEN value...` when options[name] is given; several fields are given as an object of them, or with `tuple` as an array in field order
  // `variadic`: one value or a non-empty array of them; `variadic-keys`: of keys (LANES)
  | { kind: 'option'; name: string; token: string; fields: Field[] | 'variadic' | 'variadic-keys'; tuple?: boolean }
  | { kind: 'flag'; name: string; token: string } // `TOKEN` when options[name] is true
  // Exactly one of several lists after their keywords: the first as the positional parameter (one value or a
  // non-empty array), the others as options[name]; `TOKEN value...`, or with `fields` `TOKEN` and each block's fields,
  // or with `single` `TOKEN value` (one value: DELAY.SCHEDULE's EVERY or CRON)
  | { kind: 'choice'; alternatives: Array<{ name: string; token: string; fields?: string[]; single?: boolean }> };

export interface CommandSpec {
  command: string;
  /** The zkit command a call runs, when `command` is another (FCALL to the Functions library): for messages. */
  label?: string;
  readonly: boolean;
  layout: Part[];
  /** `sent`: the tokens of the options the call gave (Call.sent), for the replies they change (IDMP's flag, TOKEN's token). */
  parse: (reply: any, sent?: readonly string[]) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** `shared: true` sends SHARED: every rank in the reply is a competition rank (1 + the members with a higher total), so equal totals share a rank; the order stays first-come. */
export interface SharedOption {
  shared?: boolean;
}

/** RANK.SET's condition: `gt` keeps the total only when the new one is higher (best scores), `lt` only when it is lower; not both. */
export type RankSetCondition = { gt?: boolean; lt?: never } | { gt?: never; lt?: boolean };

/** LEASE: claimed tasks move into `key` (the in-flight set, in the queue's slot) until `ms` from now. */
export interface Lease {
  key: Key;
  ms: number;
}

/**
 * DEADLETTER: each leased delivery is counted in the sorted set `deliveries`,
 * and a due task already delivered `maxDeliveries` times moves to the sorted
 * set `dead` (scored by when it died) instead of being delivered again.
 * Both keys in the queue's slot; needs `lease`.
 */
export interface DeadLetter {
  dead: Key;
  deliveries: Key;
  maxDeliveries: number;
}

/**
 * DELAY.POLL and DELAY.BPOLL options: `count` (default 1), `lease`, and `deadLetter`, `withTokens` and `worker`, which
 * need `lease`. `withTokens: true`: each task comes with its delivery's `token`, which delayAck (`leases`), delayNack and
 * delayTouch take to act on that delivery only. `data`: the queue's job data hash (in the queue's slot): a paused queue
 * delivers nothing, a task past its `within` deadline is dead-lettered as `expired` (dropped without `deadLetter`), a
 * task polled without `lease` takes its data with it, and `worker` (needs `data` too) records the holder. `lanes`: more
 * queues (in the queue's slot), polled after it in the order given: a due task in an earlier one is always claimed first.
 */
export type PollOptions = { count?: number; data?: Key; withData?: false; lanes?: Key[] } & LeaseOptions;

/** PollOptions with `withData: true` (needs `data`): the reply is jobs, each with its payload (JobPollOptions). */
export type JobPollOptions = { count?: number; data: Key; withData: true; lanes?: Key[] } & LeaseOptions;

/**
 * RATE on a poll: the claims of every worker spend one window, counted in the RATE log `log` (in the queue's slot): at
 * most `limit` tasks claimed per `windowMs`, nothing spent while nothing is due.
 */
export interface PollRate {
  log: Key;
  windowMs: number;
  limit: number;
}

/** DELAY.SCHEDULE's options: the first occurrence from `start` (unix ms, default now), cron in `tz` (default UTC), the `payload` each occurrence carries. */
export interface ScheduleOptions {
  tz?: Text;
  start?: number;
  payload?: Text;
}

type LeaseOptions =
  | { lease?: Lease; deadLetter?: never; withTokens?: never; worker?: never }
  | { lease: Lease; deadLetter?: DeadLetter; withTokens?: boolean; worker?: Text };

/** One delivery of a task, as delayAck's `leases` name it: a Task a poll with `withTokens` returned is one. */
export interface Delivery {
  task: Text;
  token: number;
}

/** A task for delayAdd: due at `dueMs` (unix ms; a time past is now). */
export interface ScheduledTask {
  dueMs: number;
  task: Text;
}

/** A job for delayAdd: a task with its payload, kept in the queue's DATA hash. */
export interface ScheduledJob extends ScheduledTask {
  payload: Text;
}

/**
 * DELAY.ADD options. A task id the queue already holds is kept as it is (`keep`, the default), or given the new due
 * time and payload (`replace`), or pushed back only (`extend`: debounce; the payload is replaced); with `inflight`, an id
 * a worker holds is never touched. `within` (ms, needs `data`): a task still waiting that long after its due time is not
 * delivered. `group` (needs `data`): the tasks belong to that group (a tenant), whose limits delayGroup sets. All keys in
 * the queue's slot.
 */
export type DelayAddOptions = { data?: Key; inflight?: Key; within?: number; group?: Text } & (
  | { keep?: boolean; replace?: never; extend?: never }
  | { replace?: boolean; keep?: never; extend?: never }
  | { extend?: boolean; keep?: never; replace?: never }
);

/**
 * `idmp: [seenKey, eventId]`: the write applies once per event id (retry a failed call with the same id), and the
 * reply gains `alreadyApplied`. `seenKey` is a sorted set in the board's slot; the id is remembered `retain` ms
 * (default zkit.idmp-retain-ms, 24 h). See docs/delivery.md.
 */
export interface IdmpOption {
  idmp?: [seenKey: Key, eventId: Text];
  retain?: number;
}

/** One limit of RATE.HIT: at most `limit` units in any `windowMs`. */
export interface RateLimit {
  windowMs: number;
  limit: number;
}

/**
 * The commands whose signatures are written here, not generated (scripts/gen/gen-clients.py's NODE_HAND_METHODS: a
 * reply an option changes, lists or options that go only together, one limit inline); methods.ts's ZkitCommands
 * extends it with the generated ones.
 */
export interface HandWrittenCommands {
  /** RANK.SET: replace the member's total (with `gt` / `lt`, only by a higher / lower one); resolves to the total that stands. An unchanged total keeps its reached-at time. */
  rankSet(key: Key, member: Text, total: number, options?: { at?: number; ttl?: number } & RankSetCondition & SharedOption & IdmpOption): Promise<TotalRank>;
  /** RANK.MERGE: store the sum of `sources` (times integer `weights`) in `destkey`, keeping first-come order; all keys in one slot. Resolves to the members in `destkey`. */
  rankMerge(destkey: Key, sources: Key[], options?: { weights?: number[] }): Promise<number>;
  /** RANK.MERGE with `step`: merges `count` members into the `staging` key (cursor '0' starts); call again with the returned cursor until it is '0'. */
  rankMerge(destkey: Key, sources: Key[], options: { weights?: number[]; step: { count: number; staging: Key; cursor: Text } }): Promise<MergeStep>;
  /** DELAY.POLL with `rate` and `withData: true`: the jobs claimed within the window, and when tasks were due but the window allowed none, the ms until it has room (-1 otherwise). */
  delayPoll(key: Key, options: JobPollOptions & { rate: PollRate }): Promise<RatedJobs>;
  /** DELAY.POLL with `rate`: the tasks claimed within the window, and when tasks were due but the window allowed none, the ms until it has room (-1 otherwise). */
  delayPoll(key: Key, options: PollOptions & { rate: PollRate }): Promise<RatedTasks>;
  /** DELAY.POLL with `withData: true`: the claimed jobs, each with its payload, its delivery's token (null without `lease`) and its deliveries (null without `deadLetter`). */
  delayPoll(key: Key, options: JobPollOptions): Promise<Job[]>;
  /**
   * DELAY.POLL: claim up to `count` due tasks; with `lease`, move them into `lease.key` until `lease.ms` from now (ack with
   * delayAck); with `deadLetter`, tasks delivered too often move to the dead-letter set instead. (On a node-redis module,
   * whose types take a method's last signature, `withData` is typed on zkit(client).)
   */
  delayPoll(key: Key, options?: PollOptions): Promise<Task[]>;
  /** DELAY.BPOLL with `withData: true`: delayPoll's jobs, or null on timeout. With `rate`, it also waits for room in the window. */
  delayBpoll(key: Key, timeoutMs: number, options: JobPollOptions & { rate?: PollRate }): Promise<Job[] | null>;
  /** DELAY.BPOLL: delayPoll that blocks until a task is due or `timeoutMs` passes (0: forever); null on timeout. With `data`, a paused queue keeps it blocked until delayResume. */
  delayBpoll(key: Key, timeoutMs: number, options?: PollOptions & { rate?: PollRate }): Promise<Task[] | null>;
  /**
   * DELAY.ACK: remove finished tasks from an in-flight set (with `deliveries`, their delivery counts too; with `data`,
   * their payloads and history); resolves to how many were removed. Either `tasks`, removed whatever delivery holds
   * them, or `leases` (the tasks a poll with `withTokens` returned, or `{ task, token }`): each task removed only while
   * the delivery its token names holds it.
   */
  delayAck(
    inflight: Key,
    ...acked: [tasks: Text | Text[], options?: { deliveries?: Key; data?: Key }] | [options: { leases: Delivery[]; deliveries?: Key; data?: Key }]
  ): Promise<number>;
  /**
   * DELAY.NACK: hand a held task back to `queue`, due `delayMs` from now (0: now), in one step; false when it was no
   * longer in flight (its lease had ended) or, with `token`, another delivery holds it. With `data` the task keeps its
   * payload and its holder is forgotten; `reason` (needs `data`) becomes its last failure reason (delayJob shows it, a
   * dead task keeps it). Both keys in one slot.
   */
  delayNack(
    inflight: Key,
    queue: Key,
    task: Text,
    delayMs: number,
    options?: { token?: number } & ({ data?: never; reason?: never } | { data: Key; reason?: Text }),
  ): Promise<boolean>;
  /** DELAY.TOUCH: extend a held task's lease to end `ms` from now; false when it was no longer in flight: stop working on it. */
  delayTouch(inflight: Key, task: Text, ms: number): Promise<boolean>;
  /** DELAY.TOUCH with `token`: resolves to the delivery's new token (send it from then on), 0 when its lease had ended or another delivery holds the task: stop working on it. */
  delayTouch(inflight: Key, task: Text, ms: number, options: { token: number }): Promise<number>;
  /** DELAY.TOUCH with or without `token` (the signature node-redis's module types read: they take a method's last). */
  delayTouch(inflight: Key, task: Text, ms: number, options?: { token?: number }): Promise<boolean | number>;
  /**
   * DELAY.ADD: add `tasks` or, with their payloads into the `data` hash, `jobs` (given as an option), in one call; tasks
   * due in the same ms come out in the order given. Resolves to one number per task: 1 added, 2 updated, 0 kept.
   */
  delayAdd(
    queue: Key,
    ...added: [tasks: ScheduledTask[], options?: DelayAddOptions] | [options: DelayAddOptions & { jobs: ScheduledJob[]; data: Key }]
  ): Promise<number[]>;
  /**
   * DELAY.SCHEDULE: add or change the repeating job `id`: every `everyMs` ms, or (as an option) at the times the
   * five-field `cron` expression matches in `tz`. Each occurrence is the task `<id>@<unix-ms>` of `queue`, and the poll
   * that claims it queues the next one, so each runs once across workers and failovers. Resolves to the first
   * occurrence's time.
   */
  delaySchedule(queue: Key, data: Key, id: Text, ...rule: [everyMs: number, options?: ScheduleOptions] | [options: ScheduleOptions & { cron: Text }]): Promise<number>;
  /**
   * RATE.HIT: count a hit (`cost` units) against "at most `limit` units in any `windowMs`", or against several
   * limits at once (`[{ windowMs, limit }, ...]`: allowed only if every limit allows it, then logged once);
   * a refused hit logs nothing (and with `idmp`, remembers no event id). A cost above a limit is refused with
   * `retryAfterMs` -1 (no wait lets it pass); a negative cost gives that many of the newest units back.
   */
  rateHit(
    key: Key,
    ...limits: [windowMs: number, limit: number, options?: { cost?: number } & IdmpOption] | [limits: RateLimit[], options?: { cost?: number } & IdmpOption]
  ): Promise<RateResult>;
  /** RATE.PEEK: what rateHit with the same `cost` (at least 1) and limits would answer now, without counting the hit or writing anything (a forecast: another client's hit may come first). */
  ratePeek(
    key: Key,
    ...limits: [windowMs: number, limit: number, options?: { cost?: number }] | [limits: RateLimit[], options?: { cost?: number }]
  ): Promise<RateResult>;
}

/** One call's arguments, ready to send: `argv[0]` is the command, `keyIndexes` index the keys in `argv`. */
export interface Call {
  argv: Array<string | Buffer>;
  keyIndexes: number[];
  /** The tokens of the options and flags the call gives: its reply's parser reads what they change (IDMP's flag, TOKEN's token). */
  sent: string[];
}

const wire = (value: Arg): string | Buffer => (typeof value === 'number' ? String(value) : value);

function nonEmpty<T>(spec: CommandSpec, values: T | T[]): T[] {
  const list = Array.isArray(values) ? values : [values];
  if (list.length === 0) throw new TypeError(`${spec.command}: expected at least one value`);
  return list;
}

const isOption = (part: Part): boolean => part.kind === 'option' || part.kind === 'flag';

/** Whether a parameter is a value or a list of them, not an options object. */
const isValues = (param: unknown): boolean =>
  typeof param === 'string' || typeof param === 'number' || Buffer.isBuffer(param) || Array.isArray(param);

/**
 * How many parameters a positional part takes: an inline block list given as one block's fields takes one per
 * field; a choice takes none when its first list is not given (another is, in the options).
 */
function width(part: Part, param: unknown): number {
  if (part.kind === 'blocks' && part.inline && !Array.isArray(param)) return part.fields.length;
  if (part.kind === 'choice' && !isValues(param)) return 0;
  return 1;
}

/** Lays out a method's arguments (positional parameters, then the options object) as the command's layout says. */
export function buildCall(spec: CommandSpec, params: unknown[]): Call {
  let positional = 0;
  for (const part of spec.layout) if (!isOption(part)) positional += width(part, params[positional]);
  const options = (params[positional] ?? {}) as Record<string, unknown>;
  const argv: Array<string | Buffer> = [spec.command];
  const keyIndexes: number[] = [];
  const sent: string[] = [];
  const pushKey = (value: Key) => {
    keyIndexes.push(argv.length);
    argv.push(value);
  };
  let next = 0;
  for (const part of spec.layout) {
    switch (part.kind) {
      case 'key':
        pushKey(params[next++] as Key);
        break;
      case 'arg':
        argv.push(wire(params[next++] as Arg));
        break;
      case 'keys': {
        const sources = nonEmpty(spec, params[next++] as Key[]);
        argv.push(String(sources.length));
        sources.forEach(pushKey);
        break;
      }
      case 'args':
        argv.push(part.token);
        for (const value of nonEmpty(spec, params[next++] as Arg | Arg[])) argv.push(wire(value));
        break;
      case 'blocks': {
        const first = params[next];
        const blocks =
          part.inline && !Array.isArray(first)
            ? [Object.fromEntries(part.fields.map((field) => [field, params[next++]]))]
            : nonEmpty(spec, params[next++] as Array<Record<string, Arg>>);
        for (const block of blocks as Array<Record<string, Arg>>) {
          for (const field of part.fields) {
            if (block[field] === undefined) throw new TypeError(`${spec.command}: each block needs ${part.fields.join(' and ')}`);
            argv.push(wire(block[field]));
          }
        }
        break;
      }
      case 'choice': {
        const [first, ...others] = part.alternatives;
        const lists = [...(width(part, params[next]) ? [[first, params[next++]] as const] : []), ...others.map((alternative) => [alternative, options[alternative.name]] as const)];
        const given = lists.filter(([, value]) => value !== undefined && value !== null);
        if (given.length !== 1) throw new TypeError(`${spec.command}: give either ${part.alternatives.map((alternative) => alternative.name).join(' or ')}`);
        const [alternative, value] = given[0];
        argv.push(alternative.token);
        if (alternative.single) {
          if (Array.isArray(value)) throw new TypeError(`${spec.command}: ${alternative.name} takes one value`);
          argv.push(wire(value as Arg));
          break;
        }
        for (const item of nonEmpty(spec, value as Arg | Arg[])) {
          if (!alternative.fields) {
            argv.push(wire(item));
            continue;
          }
          const block = item as unknown as Record<string, Arg>;
          for (const field of alternative.fields) {
            if (block?.[field] === undefined) throw new TypeError(`${spec.command}: each of ${alternative.name} needs ${alternative.fields.join(' and ')}`);
            argv.push(wire(block[field]));
          }
        }
        break;
      }
      case 'flag':
        if (options[part.name]) {
          argv.push(part.token);
          sent.push(part.token);
        }
        break;
      case 'option': {
        const value = options[part.name];
        if (value === undefined || value === null) break;
        argv.push(part.token);
        sent.push(part.token);
        if (part.fields === 'variadic') {
          for (const item of nonEmpty(spec, value as Arg[])) argv.push(wire(item));
        } else if (part.fields === 'variadic-keys') {
          nonEmpty(spec, value as Key[]).forEach(pushKey);
        } else if (part.fields.length === 1) {
          if (part.fields[0].isKey) pushKey(value as Key);
          else argv.push(wire(value as Arg));
        } else {
          if (part.tuple && (!Array.isArray(value) || value.length !== part.fields.length)) {
            throw new TypeError(`${spec.command}: ${part.name} must be [${part.fields.map((field) => field.name).join(', ')}]`);
          }
          for (const [i, field] of part.fields.entries()) {
            const fieldValue = part.tuple ? (value as Arg[])[i] : (value as Record<string, Arg>)[field.name];
            if (fieldValue === undefined) throw new TypeError(`${spec.command}: ${part.name}.${field.name} is missing`);
            if (field.isKey) pushKey(fieldValue as Key);
            else argv.push(wire(fieldValue));
          }
        }
        break;
      }
    }
  }
  return { argv, keyIndexes, sent };
}
