// The table of zkit commands: argument layout, which arguments are keys, and
// the reply parser of each, as docs/commands.md specifies them.
//
// How to add a command:
// 1. Add an entry to COMMANDS: the method name (camelCase of the command),
//    the command, whether it only reads, its layout in argument order
//    (key/arg/keys/args/scored/limits for positional parameters, option()
//    for `TOKEN value...` options, each field of an option a key or a value,
//    flag() for a bare `TOKEN` sent when its option is true) and a parser
//    from replies.ts (add an interface there for a new reply).
// 2. Add the method's signature to ZkitCommands below: the positional
//    parameters in layout order, then an options object.
// 3. Call it in test/commands.test.mjs (the suite checks that every entry
//    of COMMANDS was called).
// The Zkit wrapper, the node-redis module, routing, ioredis keyPrefix and
// the same-slot check all read this table, so nothing else changes.

import * as replies from './replies';
import type { FeedPage, RankEntry, RankInfo, RateResult, Task, Text, TotalRank, VoteResult } from './replies';

export type Arg = string | Buffer | number;
export type Key = string | Buffer;

type Field = { name: string; isKey: boolean };

export type Part =
  | { kind: 'key' } // a positional key
  | { kind: 'arg' } // a positional value
  | { kind: 'keys' } // a non-empty array of keys, sent as `numkeys key...`
  | { kind: 'args'; keyword?: Keyword } // one value or a non-empty array, one argument each
  | { kind: 'scored' } // a non-empty array of { score, member }, sent as `score member...`
  | { kind: 'limits' } // `windowMs, limit` (two parameters) or a non-empty array of { windowMs, limit }, sent as `window-ms limit...`
  | { kind: 'option'; name: string; token: string; fields: Field[] | 'variadic' }
  | { kind: 'flag'; name: string; token: string }; // `TOKEN` when options[name] is true

/**
 * An option the server reads from the end of an `args` list, where a value
 * spelled like its token (any case) would be taken for it: 'last' moves
 * such a value to the end (for a reply that does not depend on the order),
 * 'notLast' refuses it in the last place (for a reply in argument order).
 */
type Keyword = { token: string; place: 'last' | 'notLast' };

export interface CommandSpec {
  command: string;
  readonly: boolean;
  layout: Part[];
  /** `idmp`: the call gave IDMP, so the reply ends with the already-applied flag. */
  parse: (reply: any, idmp?: boolean) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const key: Part = { kind: 'key' };
const arg: Part = { kind: 'arg' };
const keys: Part = { kind: 'keys' };
const args: Part = { kind: 'args' };
const argsBefore = (token: string, place: Keyword['place']): Part => ({ kind: 'args', keyword: { token, place } });
const scored: Part = { kind: 'scored' };
const limits: Part = { kind: 'limits' };
/** `TOKEN value` from options[name] (a key with one keyField); with fields, `TOKEN f1 f2` from options[name].f1, .f2. */
const option = (name: string, token: string, ...fields: Field[]): Part => ({
  kind: 'option',
  name,
  token,
  fields: fields.length ? fields : [{ name: '', isKey: false }],
});
const variadicOption = (name: string, token: string): Part => ({ kind: 'option', name, token, fields: 'variadic' });
const keyField = (name: string): Field => ({ name, isKey: true });
const valueField = (name: string): Field => ({ name, isKey: false });
/** `TOKEN` alone when options[name] is true. */
const flag = (name: string, token: string): Part => ({ kind: 'flag', name, token });
const shared = flag('shared', 'SHARED');
/** `IDMP seen-key event-id` from options.idmp = [seenKey, eventId], then `RETAIN ms`. */
const idmp: Part[] = [option('idmp', 'IDMP', keyField('0'), valueField('1')), option('retain', 'RETAIN')];
const deadLetter = option('deadLetter', 'DEADLETTER', keyField('dead'), keyField('deliveries'), valueField('maxDeliveries'));

export const COMMANDS = {
  rankGift: { command: 'RANK.GIFT', readonly: false, layout: [key, arg, arg, option('at', 'AT'), shared, ...idmp], parse: replies.parseTotalRank },
  rankSet: {
    command: 'RANK.SET',
    readonly: false,
    layout: [key, arg, arg, option('at', 'AT'), flag('gt', 'GT'), flag('lt', 'LT'), shared, ...idmp],
    parse: replies.parseTotalRank,
  },
  rankGet: { command: 'RANK.GET', readonly: true, layout: [key, arg, shared], parse: replies.parseRankInfo },
  rankTop: { command: 'RANK.TOP', readonly: true, layout: [key, arg, option('offset', 'OFFSET'), shared], parse: replies.parseRankEntries },
  rankAround: { command: 'RANK.AROUND', readonly: true, layout: [key, arg, arg, shared], parse: replies.parseRankEntries },
  rankMerge: { command: 'RANK.MERGE', readonly: false, layout: [key, keys, variadicOption('weights', 'WEIGHTS')], parse: replies.parseNumber },
  rankMgift: { command: 'RANK.MGIFT', readonly: false, layout: [keys, arg, arg, option('at', 'AT'), shared, ...idmp], parse: replies.parseTotalRanks },
  rankMget: { command: 'RANK.MGET', readonly: true, layout: [key, argsBefore('SHARED', 'notLast'), shared], parse: replies.parseRankInfos },
  feedAdd: { command: 'FEED.ADD', readonly: false, layout: [key, option('cap', 'CAP'), scored], parse: replies.parseNumber },
  feedPage: {
    command: 'FEED.PAGE',
    readonly: true,
    layout: [key, option('count', 'COUNT'), option('newer', 'NEWER'), option('older', 'OLDER')],
    parse: replies.parseFeedPage,
  },
  delayPoll: {
    command: 'DELAY.POLL',
    readonly: false,
    layout: [key, option('count', 'COUNT'), option('lease', 'LEASE', keyField('key'), valueField('ms')), deadLetter],
    parse: replies.parseTasks,
  },
  delayBpoll: {
    command: 'DELAY.BPOLL',
    readonly: false,
    layout: [key, arg, option('count', 'COUNT'), option('lease', 'LEASE', keyField('key'), valueField('ms')), deadLetter],
    parse: replies.parseTasks,
  },
  delayAck: {
    command: 'DELAY.ACK',
    readonly: false,
    layout: [key, argsBefore('DELIVERIES', 'last'), option('deliveries', 'DELIVERIES', keyField(''))],
    parse: replies.parseNumber,
  },
  delayNack: { command: 'DELAY.NACK', readonly: false, layout: [key, key, arg, arg], parse: replies.parseBoolean },
  delayTouch: { command: 'DELAY.TOUCH', readonly: false, layout: [key, arg, arg], parse: replies.parseBoolean },
  rateHit: { command: 'RATE.HIT', readonly: false, layout: [key, ...idmp, limits, option('cost', 'COST')], parse: replies.parseRate },
  recentAdd: {
    command: 'RECENT.ADD',
    readonly: false,
    layout: [key, args, option('cap', 'CAP'), option('ttl', 'TTL')],
    parse: replies.parseNumber,
  },
  voteCast: {
    command: 'VOTE.CAST',
    readonly: false,
    layout: [
      key,
      key,
      key,
      arg,
      arg,
      arg,
      option('weight', 'WEIGHT', valueField('up'), valueField('down')),
      option('window', 'WINDOW', keyField('key'), valueField('seconds')),
    ],
    parse: replies.parseVote,
  },
  voteState: { command: 'VOTE.STATE', readonly: true, layout: [key, key, arg], parse: replies.parseNumber },
} satisfies Record<string, CommandSpec>;

export type MethodName = keyof typeof COMMANDS;

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
 * `idmp: [seenKey, eventId]`: the write applies once per event id (retry a failed call with the same id); the reply
 * gains `alreadyApplied`. `seenKey` is a sorted set in the board's slot; the id is remembered `retain` ms (default
 * zkit.idmp-retain-ms, 24 h).
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
  /** RANK.MGIFT: one RANK.GIFT of `amount` on every board in `keys` (each named once, all in one slot), atomically; one { total, rank } per board, in order. */
  rankMgift(keys: Key[], member: Text, amount: number, options?: { at?: number } & SharedOption & IdmpOption): Promise<TotalRank[]>;
  /** RANK.MGET: what rankGet gives for each member, in order (null for an absent one). A member spelled SHARED (any case) may not be last: the server would read it as the option. */
  rankMget(key: Key, members: Text | Text[], options?: SharedOption): Promise<Array<RankInfo | null>>;
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
  /**
   * RATE.HIT: count a hit (`cost` units) against "at most `limit` units in any `windowMs`", or against several
   * limits at once (`[{ windowMs, limit }, ...]`: allowed only if every limit allows it, then logged once);
   * a refused hit logs nothing.
   */
  rateHit(
    key: Key,
    ...limits: [windowMs: number, limit: number, options?: { cost?: number } & IdmpOption] | [limits: RateLimit[], options?: { cost?: number } & IdmpOption]
  ): Promise<RateResult>;
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

/** How many parameters a positional part takes: `limits` takes two when given as `windowMs, limit`. */
const width = (part: Part, param: unknown): number => (part.kind === 'limits' && !Array.isArray(param) ? 2 : 1);

/** `values` with the option's token where the server does not read it as the option (see Keyword). */
function placeKeyword(spec: CommandSpec, values: Arg[], { token, place }: Keyword): Arg[] {
  const isToken = (value: Arg) => typeof value !== 'number' && value.length === token.length && value.toString().toUpperCase() === token;
  if (place === 'notLast') {
    if (isToken(values[values.length - 1])) {
      throw new TypeError(`${spec.command}: the server reads a last value spelled ${token} as the option; put it earlier in the list`);
    }
    return values;
  }
  const named = values.filter(isToken);
  if (named.length === 0) return values;
  if (named.length > 1) throw new TypeError(`${spec.command}: at most one value spelled ${token} per call`);
  return [...values.filter((value) => !isToken(value)), ...named];
}

/** Lays out a method's arguments (positional parameters, then the options object) as the command's layout says. */
export function buildCall(spec: CommandSpec, params: unknown[]): Call {
  let positional = 0;
  for (const part of spec.layout) if (!isOption(part)) positional += width(part, params[positional]);
  const options = (params[positional] ?? {}) as Record<string, unknown>;
  const argv: Array<string | Buffer> = [spec.command];
  const keyIndexes: number[] = [];
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
      case 'args': {
        let values = nonEmpty(spec, params[next++] as Arg[]);
        if (part.keyword) values = placeKeyword(spec, values, part.keyword);
        for (const value of values) argv.push(wire(value));
        break;
      }
      case 'scored':
        for (const { score, member } of nonEmpty(spec, params[next++] as Array<{ score: Arg; member: Text }>)) {
          argv.push(wire(score), member);
        }
        break;
      case 'limits': {
        const first = params[next++];
        const pairs = Array.isArray(first)
          ? nonEmpty(spec, first as Array<{ windowMs: Arg; limit: Arg }>)
          : [{ windowMs: first as Arg, limit: params[next++] as Arg }];
        for (const { windowMs, limit } of pairs) {
          if (windowMs === undefined || limit === undefined) throw new TypeError(`${spec.command}: a limit needs windowMs and limit`);
          argv.push(wire(windowMs), wire(limit));
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
        if (part.fields === 'variadic') {
          for (const item of nonEmpty(spec, value as Arg[])) argv.push(wire(item));
        } else if (part.fields.length === 1) {
          if (part.fields[0].isKey) pushKey(value as Key);
          else argv.push(wire(value as Arg));
        } else {
          for (const field of part.fields) {
            const fieldValue = (value as Record<string, Arg>)[field.name];
            if (fieldValue === undefined) throw new TypeError(`${spec.command}: ${part.name}.${field.name} is missing`);
            if (field.isKey) pushKey(fieldValue as Key);
            else argv.push(wire(fieldValue));
          }
        }
        break;
      }
    }
  }
  return { argv, keyIndexes, idmp: options.idmp !== undefined && options.idmp !== null };
}
