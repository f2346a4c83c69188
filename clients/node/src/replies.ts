// Typed replies of zkit commands and the parsers that build them, in the
// reply order of docs/commands.md. Scores arrive as strings in RESP2 and as
// numbers in RESP3; Number() reads both exactly. Members, tasks and cursors
// stay what the client returns (strings, or Buffers in a buffer mode).

export type Text = string | Buffer;

/** RANK.GIFT, RANK.SET and each board of RANK.MGIFT: the member's total and its 1-based rank (with `shared`, its competition rank). */
export interface TotalRank {
  total: number;
  rank: number;
  /** Only with `idmp`: true when the event id was already applied (nothing changed; total and rank are the board's now, rank 0 if the member has left it since). */
  alreadyApplied?: boolean;
}

/** RANK.GET and each member of RANK.MGET: total, rank and when the total was reached (unix ms). */
export interface RankInfo {
  total: number;
  rank: number;
  reachedAtMs: number;
}

/** One row of RANK.TOP and RANK.AROUND. */
export interface RankEntry {
  rank: number;
  member: Text;
  total: number;
}

/** One item of a FEED.PAGE page. */
export interface FeedItem {
  member: Text;
  score: number;
}

/**
 * FEED.PAGE: items newest first, the cursors of the first and last item
 * (the cursor given, or null, when the page is empty), and whether more
 * items remain in the direction asked.
 */
/** RANK.MERGE with `step`: the cursor to send next (`'0'` once the merge is done and destkey replaced) and the members merged so far. */
export interface MergeStep {
  cursor: Text;
  staged: number;
}

export interface FeedPage {
  items: FeedItem[];
  top: Text | null;
  bottom: Text | null;
  more: boolean;
}

/**
 * A task claimed by DELAY.POLL or DELAY.BPOLL and the score it was due at
 * in the polled key (unix ms; for an in-flight set, its lease's end).
 */
export interface Task {
  task: Text;
  dueMs: number;
}

/**
 * RATE.HIT: whether the hit was allowed, the units in the window after it,
 * the units left, and the ms until the same hit would pass (-1 if allowed).
 * With several limits, these describe the limit that binds, and `binding`
 * is its position (1-based, in the order given): when refused, the one that
 * makes the hit wait longest; when allowed, the first with the least room.
 */
export interface RateResult {
  allowed: boolean;
  count: number;
  remaining: number;
  retryAfterMs: number;
  /** Only with several limits. */
  binding?: number;
  /** Only with `idmp`: true when the hit was already counted (it spent nothing now; the counts are the window's now). A refused hit is not remembered. */
  alreadyApplied?: boolean;
}

/** VOTE.CAST: the item's score, the up and down counts, and whether the vote changed anything. */
export interface VoteResult {
  score: number;
  ups: number;
  downs: number;
  changed: boolean;
}

/** DELAY.STATS: a queue's depth and lag at the server's `nowMs` (docs/commands.md, "DELAY.STATS"); null for the counts of a set not named. */
export interface DelayStats {
  nowMs: number;
  tasks: number;
  due: number;
  oldestDueAgeMs: number;
  nextDueMs: number | null;
  inflight: number | null;
  expired: number | null;
  dead: number | null;
  redelivered: number | null;
}

/** RANK.STATS: a board's size, the spread of its totals (null on an empty board) and its memory. */
export interface BoardStats {
  members: number;
  topTotal: number | null;
  p99Total: number | null;
  p90Total: number | null;
  p50Total: number | null;
  bottomTotal: number | null;
  memoryBytes: number;
}

/** RATE.STATS: the entries of a rate log, when the newest was logged, and the entries of each window asked. */
export interface RateStats {
  entries: number;
  newestMs: number | null;
  windows: Array<{ windowMs: number; entries: number }>;
}

type Raw = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export const parseNumber = (reply: Raw): number => Number(reply);

/** RANK.MERGE: the member count, or `{ cursor, staged }` for a STEP call. */
export const parseMerge = (reply: Raw): number | MergeStep =>
  Array.isArray(reply) ? { cursor: reply[0], staged: Number(reply[1]) } : Number(reply);

/** A 1 or 0 reply: DELAY.NACK moved the task, DELAY.TOUCH extended its lease. */
export const parseBoolean = (reply: Raw): boolean => Number(reply) === 1;

/** With `applied` (the IDMP flag), the entry says whether its event was already applied. */
const totalRank = ([total, rank]: Raw, applied?: boolean): TotalRank => ({
  total: Number(total),
  rank: rank === null ? 0 : Number(rank),
  ...(applied === undefined ? {} : { alreadyApplied: applied }),
});

/** The IDMP flag that ends the reply of a call that gave IDMP (undefined without it). */
const appliedFlag = (reply: Raw, idmp?: boolean): boolean | undefined => (idmp ? Number(reply[reply.length - 1]) === 1 : undefined);

/** RANK.GIFT and RANK.SET: `[total, rank]`, and with IDMP (`idmp`) the flag third. */
export const parseTotalRank = (reply: Raw, idmp?: boolean): TotalRank => totalRank(reply, appliedFlag(reply, idmp));

/** RANK.MGIFT: `[[total, rank], ...]`, and with IDMP (`idmp`) the flag last. */
export function parseTotalRanks(reply: Raw, idmp?: boolean): TotalRank[] {
  const applied = appliedFlag(reply, idmp);
  return (idmp ? reply.slice(0, -1) : reply).map((pair: Raw) => totalRank(pair, applied));
}

export const parseRankInfo = (reply: Raw): RankInfo | null =>
  reply === null
    ? null
    : { total: Number(reply[0]), rank: Number(reply[1]), reachedAtMs: Number(reply[2]) };

export const parseRankInfos = (reply: Raw): Array<RankInfo | null> => reply.map(parseRankInfo);

export const parseRankEntries = (reply: Raw): RankEntry[] =>
  reply.map(([rank, member, total]: Raw) => ({ rank: Number(rank), member, total: Number(total) }));

export function parseFeedPage([flat, top, bottom, more]: Raw): FeedPage {
  const items: FeedItem[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    items.push({ member: flat[i], score: Number(flat[i + 1]) });
  }
  return { items, top, bottom, more: Number(more) === 1 };
}

// DELAY.BPOLL answers nil on timeout; DELAY.POLL never does.
export const parseTasks = (reply: Raw): Task[] | null =>
  reply === null ? null : reply.map(([task, dueMs]: Raw) => ({ task, dueMs: Number(dueMs) }));

/** RATE.HIT: four fields, the binding limit fifth with several limits, and with IDMP (`idmp`) the flag last. */
export function parseRate(reply: Raw, idmp?: boolean): RateResult {
  const applied = appliedFlag(reply, idmp);
  const [allowed, count, remaining, retryAfterMs, binding] = idmp ? reply.slice(0, -1) : reply;
  return {
    allowed: Number(allowed) === 1,
    count: Number(count),
    remaining: Number(remaining),
    retryAfterMs: Number(retryAfterMs),
    ...(binding === undefined ? {} : { binding: Number(binding) }),
    ...(applied === undefined ? {} : { alreadyApplied: applied }),
  };
}

export const parseVote = ([score, ups, downs, changed]: Raw): VoteResult => ({
  score: Number(score),
  ups: Number(ups),
  downs: Number(downs),
  changed: Number(changed) === 1,
});

/** A field list `[name, value, ...]` (or a RESP3 map) as an object keyed by camelCase name; nil values stay null. */
function fields(reply: Raw): Record<string, Raw> {
  const out: Record<string, Raw> = {};
  const pairs: Array<[Raw, Raw]> = Array.isArray(reply) ? [] : reply instanceof Map ? [...reply.entries()] : Object.entries(reply);
  if (Array.isArray(reply)) for (let i = 0; i < reply.length; i += 2) pairs.push([reply[i], reply[i + 1]]);
  for (const [name, value] of pairs) {
    out[String(name).replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())] = value;
  }
  return out;
}

const numberOrNull = (value: Raw): number | null => (value === null || value === undefined ? null : Number(value));

/** Reads the named fields of a stats reply as numbers or null. */
function numbers<T>(reply: Raw, names: Array<keyof T & string>): T {
  const all = fields(reply);
  return Object.fromEntries(names.map((name) => [name, numberOrNull(all[name])])) as T;
}

export const parseDelayStats = (reply: Raw): DelayStats =>
  numbers<DelayStats>(reply, ['nowMs', 'tasks', 'due', 'oldestDueAgeMs', 'nextDueMs', 'inflight', 'expired', 'dead', 'redelivered']);

export const parseBoardStats = (reply: Raw): BoardStats =>
  numbers<BoardStats>(reply, ['members', 'topTotal', 'p99Total', 'p90Total', 'p50Total', 'bottomTotal', 'memoryBytes']);

export function parseRateStats(reply: Raw): RateStats {
  const all = fields(reply);
  return {
    entries: Number(all.entries),
    newestMs: numberOrNull(all.newestMs),
    windows: all.windows.map(([windowMs, entries]: Raw) => ({ windowMs: Number(windowMs), entries: Number(entries) })),
  };
}
