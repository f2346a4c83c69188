// How a command's arguments are laid out (Part, CommandSpec), the typed
// signatures of the methods (ZkitCommands), and buildCall, which lays out one
// call's arguments. The layouts themselves are in table.ts, generated from
// docs/commands.json by scripts/gen-clients.py.
//
// How to add a command:
// 1. Declare it in the module; `ZKIT_REGENERATE=1 cargo test --lib reference`
//    writes docs/commands.json, then `python3 scripts/gen-clients.py` writes
//    table.ts and replies.ts (its reply type and parser, from the
//    declaration's reply shape).
// 2. Add the method's signature to ZkitCommands below: the positional
//    parameters in layout order, then an options object named after the
//    tokens.
// 3. Call it in test/commands.test.mjs (the suite checks that every entry
//    of COMMANDS was called).
// The Zkit wrapper, the node-redis module, routing, ioredis keyPrefix and
// the same-slot check all read the table, so nothing else changes.

import type {
  BoardStats,
  DelayStats,
  FeedPage,
  MergeStep,
  RankEntry,
  RankInfo,
  RateResult,
  RateStats,
  Task,
  Text,
  TotalRank,
  VoteResult,
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
  | { kind: 'option'; name: string; token: string; fields: Field[] | 'variadic'; tuple?: boolean }
  | { kind: 'flag'; name: string; token: string }; // `TOKEN` when options[name] is true

export interface CommandSpec {
  command: string;
  /** The zkit command a call runs, when `command` is another (FCALL to the Functions library): for messages. */
  label?: string;
  readonly: boolean;
  layout: Part[];
  /** `idmp`: the call gave IDMP, so its reply ends with the already-applied flag (Call.idmp). */
  parse: (reply: any, idmp?: boolean) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
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

/** DELAY.POLL and DELAY.BPOLL options: `count` (default 1), `lease`, and `deadLetter`, which needs `lease`. */
export type PollOptions = { count?: number } & ({ lease?: Lease; deadLetter?: never } | { lease: Lease; deadLetter?: DeadLetter });

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

/** The zkit commands, one method each; every method returns a promise of the parsed reply. */
export interface ZkitCommands {
  /** RANK.GIFT: add `amount` (negative allowed) to the member's total; equal totals rank first-come. `at` (unix ms) replaces the server clock. */
  rankGift(key: Key, member: Text, amount: number, options?: { at?: number } & SharedOption & IdmpOption): Promise<TotalRank>;
  /** RANK.SET: replace the member's total (with `gt` / `lt`, only by a higher / lower one); resolves to the total that stands. An unchanged total keeps its reached-at time. */
  rankSet(key: Key, member: Text, total: number, options?: { at?: number } & RankSetCondition & SharedOption & IdmpOption): Promise<TotalRank>;
  /** RANK.GET: total, rank and reached-at, or null when the key or member is absent. */
  rankGet(key: Key, member: Text, options?: SharedOption): Promise<RankInfo | null>;
  /** RANK.TOP: up to `count` entries from rank `offset + 1` down (`offset` counts positions, also with `shared`). */
  rankTop(key: Key, count: number, options?: { offset?: number } & SharedOption): Promise<RankEntry[]>;
  /** RANK.AROUND: the member and up to `radius` entries above and below it; empty when it is absent. */
  rankAround(key: Key, member: Text, radius: number, options?: SharedOption): Promise<RankEntry[]>;
  /** RANK.MERGE: store the sum of `sources` (times integer `weights`) in `destkey`, keeping first-come order; all keys in one slot. Resolves to the members in `destkey`. */
  rankMerge(destkey: Key, sources: Key[], options?: { weights?: number[] }): Promise<number>;
  /** RANK.MERGE with `step`: merges `count` members into the `staging` key (cursor '0' starts); call again with the returned cursor until it is '0'. */
  rankMerge(destkey: Key, sources: Key[], options: { weights?: number[]; step: { count: number; staging: Key; cursor: Text } }): Promise<MergeStep>;
  /** RANK.MGIFT: one RANK.GIFT of `amount` on every board in `keys` (each named once, all in one slot), atomically; one { total, rank } per board, in order. */
  rankMgift(keys: Key[], member: Text, amount: number, options?: { at?: number } & SharedOption & IdmpOption): Promise<TotalRank[]>;
  /** RANK.MGET: what rankGet gives for each member, in order (null for an absent one). Sent as `RANK.MGET key [SHARED] MEMBERS member...`: any member id goes, SHARED too. */
  rankMget(key: Key, members: Text | Text[], options?: SharedOption): Promise<Array<RankInfo | null>>;
  /** RANK.STATS: the board's members, top, p99, p90, p50 and bottom totals (null on an empty board) and its memory in bytes, in O(log N). */
  rankStats(key: Key): Promise<BoardStats>;
  /** FEED.ADD: add or re-score items like ZADD; with `cap`, keep the `cap` newest. Resolves to how many members were new. */
  feedAdd(key: Key, items: Array<{ score: number | string; member: Text }>, options?: { cap?: number }): Promise<number>;
  /** FEED.PAGE: a page newest first (`count` 1..1000, default 10): the newest items, or those strictly newer or older than a cursor. */
  feedPage(key: Key, options?: { count?: number; newer?: Text; older?: Text }): Promise<FeedPage>;
  /** DELAY.POLL: claim up to `count` due tasks; with `lease`, move them into `lease.key` until `lease.ms` from now (ack with delayAck); with `deadLetter`, tasks delivered too often move to the dead-letter set instead. */
  delayPoll(key: Key, options?: PollOptions): Promise<Task[]>;
  /** DELAY.BPOLL: delayPoll that blocks until a task is due or `timeoutMs` passes (0: forever); null on timeout. */
  delayBpoll(key: Key, timeoutMs: number, options?: PollOptions): Promise<Task[] | null>;
  /** DELAY.ACK: remove finished tasks from an in-flight set (with `deliveries`, their delivery counts too); resolves to how many were there. */
  delayAck(inflight: Key, tasks: Text | Text[], options?: { deliveries?: Key }): Promise<number>;
  /** DELAY.NACK: hand a held task back to `queue`, due `delayMs` from now (0: now), in one step; false when it was no longer in flight (its lease had ended). Both keys in one slot. */
  delayNack(inflight: Key, queue: Key, task: Text, delayMs: number): Promise<boolean>;
  /** DELAY.TOUCH: extend a held task's lease to end `ms` from now; false when it was no longer in flight: stop working on it. */
  delayTouch(inflight: Key, task: Text, ms: number): Promise<boolean>;
  /** DELAY.STATS: a queue's depth and lag, and for the sets named (all in the queue's slot) tasks in flight, leases that ended, dead and redelivered tasks; O(log N). */
  delayStats(queue: Key, options?: { inflight?: Key; dead?: Key; deliveries?: Key }): Promise<DelayStats>;
  /**
   * RATE.HIT: count a hit (`cost` units) against "at most `limit` units in any `windowMs`", or against several
   * limits at once (`[{ windowMs, limit }, ...]`: allowed only if every limit allows it, then logged once);
   * a refused hit logs nothing (and with `idmp`, remembers no event id).
   */
  rateHit(
    key: Key,
    ...limits: [windowMs: number, limit: number, options?: { cost?: number } & IdmpOption] | [limits: RateLimit[], options?: { cost?: number } & IdmpOption]
  ): Promise<RateResult>;
  /** RATE.STATS: the entries of a rate log in each window given (what RATE.HIT would count now), without counting a hit. */
  rateStats(key: Key, windowsMs: number | number[]): Promise<RateStats>;
  /** RECENT.ADD: record views (the last newest), keep the `cap` newest, expire `ttl` seconds after this call; resolves to the list's size. */
  recentAdd(key: Key, members: Text | Text[], options?: { cap?: number; ttl?: number }): Promise<number>;
  /** VOTE.CAST: cast, switch or take back a vote (UP, DOWN, CLEAR); all keys in one slot. */
  voteCast(
    scores: Key,
    upvoters: Key,
    downvoters: Key,
    item: Text,
    voter: Text,
    direction: 'UP' | 'DOWN' | 'CLEAR',
    options?: { weight?: { up: number | string; down: number | string }; window?: { key: Key; seconds: number } },
  ): Promise<VoteResult>;
  /** VOTE.STATE: the voter's vote, 1 up, -1 down, 0 none. */
  voteState(upvoters: Key, downvoters: Key, voter: Text): Promise<number>;
}

/** One call's arguments, ready to send: `argv[0]` is the command, `keyIndexes` index the keys in `argv`. */
export interface Call {
  argv: Array<string | Buffer>;
  keyIndexes: number[];
  /** The call gives IDMP: its reply ends with the already-applied flag. */
  idmp?: boolean;
}

const wire = (value: Arg): string | Buffer => (typeof value === 'number' ? String(value) : value);

function nonEmpty<T>(spec: CommandSpec, values: T | T[]): T[] {
  const list = Array.isArray(values) ? values : [values];
  if (list.length === 0) throw new TypeError(`${spec.command}: expected at least one value`);
  return list;
}

const isOption = (part: Part): boolean => part.kind === 'option' || part.kind === 'flag';

/** How many parameters a positional part takes: an inline block list given as one block's fields takes one per field. */
const width = (part: Part, param: unknown): number =>
  part.kind === 'blocks' && part.inline && !Array.isArray(param) ? part.fields.length : 1;

/** Lays out a method's arguments (positional parameters, then the options object) as the command's layout says. */
export function buildCall(spec: CommandSpec, params: unknown[]): Call {
  let positional = 0;
  for (const part of spec.layout) if (!isOption(part)) positional += width(part, params[positional]);
  const options = (params[positional] ?? {}) as Record<string, unknown>;
  const argv: Array<string | Buffer> = [spec.command];
  const keyIndexes: number[] = [];
  let idmp = false;
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
      case 'flag':
        if (options[part.name]) argv.push(part.token);
        break;
      case 'option': {
        const value = options[part.name];
        if (value === undefined || value === null) break;
        argv.push(part.token);
        if (part.token === 'IDMP') idmp = true;
        if (part.fields === 'variadic') {
          for (const item of nonEmpty(spec, value as Arg[])) argv.push(wire(item));
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
  return { argv, keyIndexes, idmp };
}
