// The table of zkit commands: argument layout, which arguments are keys, and
// the reply parser of each, as docs/commands.md specifies them.
//
// How to add a command:
// 1. Add an entry to COMMANDS: the method name (camelCase of the command),
//    the command, whether it only reads, its layout in argument order
//    (key/arg/keys/args/scored for positional parameters, option() for
//    `TOKEN value...` options, each field of an option a key or a value)
//    and a parser from replies.ts (add an interface there for a new reply).
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
  | { kind: 'args' } // one value or a non-empty array, one argument each
  | { kind: 'scored' } // a non-empty array of { score, member }, sent as `score member...`
  | { kind: 'option'; name: string; token: string; fields: Field[] | 'variadic' };

export interface CommandSpec {
  command: string;
  readonly: boolean;
  layout: Part[];
  parse: (reply: any) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const key: Part = { kind: 'key' };
const arg: Part = { kind: 'arg' };
const keys: Part = { kind: 'keys' };
const args: Part = { kind: 'args' };
const scored: Part = { kind: 'scored' };
/** `TOKEN value` from options[name]; with fields, `TOKEN f1 f2` from options[name].f1, .f2. */
const option = (name: string, token: string, ...fields: Field[]): Part => ({
  kind: 'option',
  name,
  token,
  fields: fields.length ? fields : [{ name: '', isKey: false }],
});
const variadicOption = (name: string, token: string): Part => ({ kind: 'option', name, token, fields: 'variadic' });
const keyField = (name: string): Field => ({ name, isKey: true });
const valueField = (name: string): Field => ({ name, isKey: false });

export const COMMANDS = {
  rankGift: { command: 'RANK.GIFT', readonly: false, layout: [key, arg, arg, option('at', 'AT')], parse: replies.parseTotalRank },
  rankSet: { command: 'RANK.SET', readonly: false, layout: [key, arg, arg, option('at', 'AT')], parse: replies.parseTotalRank },
  rankGet: { command: 'RANK.GET', readonly: true, layout: [key, arg], parse: replies.parseRankInfo },
  rankTop: { command: 'RANK.TOP', readonly: true, layout: [key, arg, option('offset', 'OFFSET')], parse: replies.parseRankEntries },
  rankAround: { command: 'RANK.AROUND', readonly: true, layout: [key, arg, arg], parse: replies.parseRankEntries },
  rankMerge: { command: 'RANK.MERGE', readonly: false, layout: [key, keys, variadicOption('weights', 'WEIGHTS')], parse: replies.parseNumber },
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
    layout: [key, option('count', 'COUNT'), option('lease', 'LEASE', keyField('key'), valueField('ms'))],
    parse: replies.parseTasks,
  },
  delayBpoll: {
    command: 'DELAY.BPOLL',
    readonly: false,
    layout: [key, arg, option('count', 'COUNT'), option('lease', 'LEASE', keyField('key'), valueField('ms'))],
    parse: replies.parseTasks,
  },
  delayAck: { command: 'DELAY.ACK', readonly: false, layout: [key, args], parse: replies.parseNumber },
  rateHit: { command: 'RATE.HIT', readonly: false, layout: [key, arg, arg, option('cost', 'COST')], parse: replies.parseRate },
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

/** The zkit commands, one method each; every method returns a promise of the parsed reply. */
export interface ZkitCommands {
  /** RANK.GIFT: add `amount` (negative allowed) to the member's total; equal totals rank first-come. `at` (unix ms) replaces the server clock. */
  rankGift(key: Key, member: Text, amount: number, options?: { at?: number }): Promise<TotalRank>;
  /** RANK.SET: replace the member's total; an unchanged total keeps its reached-at time. */
  rankSet(key: Key, member: Text, total: number, options?: { at?: number }): Promise<TotalRank>;
  /** RANK.GET: total, rank and reached-at, or null when the key or member is absent. */
  rankGet(key: Key, member: Text): Promise<RankInfo | null>;
  /** RANK.TOP: up to `count` entries from rank `offset + 1` down. */
  rankTop(key: Key, count: number, options?: { offset?: number }): Promise<RankEntry[]>;
  /** RANK.AROUND: the member and up to `radius` entries above and below it; empty when it is absent. */
  rankAround(key: Key, member: Text, radius: number): Promise<RankEntry[]>;
  /** RANK.MERGE: store the sum of `sources` (times integer `weights`) in `destkey`, keeping first-come order; all keys in one slot. Resolves to the members in `destkey`. */
  rankMerge(destkey: Key, sources: Key[], options?: { weights?: number[] }): Promise<number>;
  /** FEED.ADD: add or re-score items like ZADD; with `cap`, keep the `cap` newest. Resolves to how many members were new. */
  feedAdd(key: Key, items: Array<{ score: number | string; member: Text }>, options?: { cap?: number }): Promise<number>;
  /** FEED.PAGE: a page newest first (`count` 1..1000, default 10): the newest items, or those strictly newer or older than a cursor. */
  feedPage(key: Key, options?: { count?: number; newer?: Text; older?: Text }): Promise<FeedPage>;
  /** DELAY.POLL: claim up to `count` due tasks; with `lease`, move them into `lease.key` until `lease.ms` from now (ack with delayAck). */
  delayPoll(key: Key, options?: { count?: number; lease?: { key: Key; ms: number } }): Promise<Task[]>;
  /** DELAY.BPOLL: delayPoll that blocks until a task is due or `timeoutMs` passes (0: forever); null on timeout. */
  delayBpoll(key: Key, timeoutMs: number, options?: { count?: number; lease?: { key: Key; ms: number } }): Promise<Task[] | null>;
  /** DELAY.ACK: remove finished tasks from an in-flight set; resolves to how many were there. */
  delayAck(inflight: Key, tasks: Text | Text[]): Promise<number>;
  /** RATE.HIT: count a hit (`cost` units) against "at most `limit` units in any `windowMs`"; a refused hit logs nothing. */
  rateHit(key: Key, windowMs: number, limit: number, options?: { cost?: number }): Promise<RateResult>;
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
}

const wire = (value: Arg): string | Buffer => (typeof value === 'number' ? String(value) : value);

function nonEmpty<T>(spec: CommandSpec, values: T | T[]): T[] {
  const list = Array.isArray(values) ? values : [values];
  if (list.length === 0) throw new TypeError(`${spec.command}: expected at least one value`);
  return list;
}

/** Lays out a method's arguments (positional parameters, then the options object) as the command's layout says. */
export function buildCall(spec: CommandSpec, params: unknown[]): Call {
  const positional = spec.layout.filter((part) => part.kind !== 'option').length;
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
      case 'args':
        for (const value of nonEmpty(spec, params[next++] as Arg[])) argv.push(wire(value));
        break;
      case 'scored':
        for (const { score, member } of nonEmpty(spec, params[next++] as Array<{ score: Arg; member: Text }>)) {
          argv.push(wire(score), member);
        }
        break;
      case 'option': {
        const value = options[part.name];
        if (value === undefined || value === null) break;
        argv.push(part.token);
        if (part.fields === 'variadic') {
          for (const item of nonEmpty(spec, value as Arg[])) argv.push(wire(item));
        } else if (part.fields.length === 1) {
          argv.push(wire(value as Arg));
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
  return { argv, keyIndexes };
}
