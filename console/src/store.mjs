// What the console reads and writes, through zkit's Node client (stats,
// boards; routed to the right cluster node) and ioredis (native reads,
// SCAN, the confirmed writes). Keys and tasks are Buffers throughout: any
// byte string is a key or a task, and an action names exactly the bytes it
// was shown.

import Redis from 'ioredis';
import { zkit } from 'zkit';

const SCAN_COUNT = 1000;
/** Keys SCAN looks at per pattern and node, at most: a page stays quick on a large keyspace. */
const SCAN_BUDGET = 100_000;

const isPattern = (name) => /[*?[]/.test(name);

/** The text `*` matched in `key` (Buffers), or null when the key does not fit the pattern. */
export function wildcardPart(pattern, key) {
  const star = pattern.indexOf('*');
  if (star < 0) return Buffer.from(pattern).equals(key) ? Buffer.alloc(0) : null;
  const prefix = Buffer.from(pattern.slice(0, star));
  const suffix = Buffer.from(pattern.slice(star + 1));
  if (key.length < prefix.length + suffix.length) return null;
  if (!key.subarray(0, prefix.length).equals(prefix)) return null;
  if (!key.subarray(key.length - suffix.length).equals(suffix)) return null;
  return key.subarray(prefix.length, key.length - suffix.length);
}

/** A template with `*` replaced by `part`. */
function fill(template, part) {
  if (template === null) return null;
  const star = template.indexOf('*');
  if (star < 0) return Buffer.from(template);
  return Buffer.concat([Buffer.from(template.slice(0, star)), part, Buffer.from(template.slice(star + 1))]);
}

// The confirmed writes: native sorted-set commands in one script each, so
// each is atomic, replicates its effects as usual (ZREM, ZADD), and reads
// the server's clock for "now".
const NOW = "local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000)";
const MOVE_BACK = `
local function back(task)
  if redis.call('ZREM', KEYS[1], task) == 0 then return 0 end
  redis.call('ZADD', KEYS[2], now, task)
  if KEYS[3] then redis.call('ZREM', KEYS[3], task) end
  return 1
end`;
const SCRIPTS = {
  /** KEYS dead, queue[, deliveries]; ARGV tasks: each still dead is due now, its count forgotten. */
  retry: `${NOW} ${MOVE_BACK}
local moved = 0
for _, task in ipairs(ARGV) do moved = moved + back(task) end
return moved`,
  /** KEYS dead, queue[, deliveries]; ARGV[1] how many: the earliest dead, due now. */
  retryBatch: `${NOW} ${MOVE_BACK}
local moved = 0
for _, task in ipairs(redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)) do moved = moved + back(task) end
return moved`,
  /** KEYS queue; ARGV task: due now if it is still waiting in the queue. */
  promote: `${NOW}
return redis.call('ZADD', KEYS[1], 'XX', 'CH', now, ARGV[1])`,
  /** KEYS set[, deliveries]; ARGV task: removed, with its delivery count. */
  remove: `local removed = redis.call('ZREM', KEYS[1], ARGV[1])
if removed == 1 and KEYS[2] then redis.call('ZREM', KEYS[2], ARGV[1]) end
return removed`,
};
/** Dead tasks one "retry all" moves per script call, and calls per click. */
export const RETRY_BATCH = 100;
const RETRY_BATCHES = 100;

export class Store {
  constructor(options) {
    this.options = options;
    const url = options.redisUrl;
    const connection = {
      username: url.username ? decodeURIComponent(url.username) : undefined,
      password: options.password,
      tls: url.protocol === 'rediss:' ? { ca: options.tlsCa ?? undefined, rejectUnauthorized: !options.tlsInsecure } : undefined,
      connectionName: 'zkit-console',
      maxRetriesPerRequest: 2,
    };
    const seed = { host: url.hostname, port: Number(url.port || 6379) };
    this.client = options.cluster
      ? new Redis.Cluster([seed], { redisOptions: connection, slotsRefreshTimeout: 2000, dnsLookup: (address, callback) => callback(null, address) })
      : new Redis({ ...seed, ...connection, lazyConnect: false });
    this.z = zkit(this.client);
  }

  close() {
    return this.client.quit();
  }

  /** Resolves once the client knows its server (a cluster client, its slots). */
  async connected() {
    if (this.client.status === 'ready') return;
    await new Promise((resolve, reject) => {
      this.client.once('ready', resolve);
      this.client.once('end', () => reject(new Error('the connection to Redis ended')));
    });
  }

  /** The nodes that hold keys: every master of a cluster, else the server. */
  async masters() {
    await this.connected();
    return this.options.cluster ? this.client.nodes('master') : [this.client];
  }

  /** Sorted sets a name or pattern names: the key itself, or up to --max-keys found by SCAN on every master. */
  async zsets(name) {
    if (!isPattern(name)) {
      return (await this.client.type(name)) === 'zset' ? [Buffer.from(name)] : [];
    }
    const found = [];
    let complete = true;
    for (const node of await this.masters()) {
      let cursor = '0';
      let scanned = 0;
      do {
        const [next, keys] = await node.scanBuffer(cursor, 'MATCH', name, 'COUNT', SCAN_COUNT, 'TYPE', 'zset');
        cursor = String(next);
        scanned += SCAN_COUNT;
        found.push(...keys);
      } while (cursor !== '0' && scanned < SCAN_BUDGET && found.length < this.options.maxKeys);
      if (cursor !== '0') complete = false;
    }
    found.sort(Buffer.compare);
    const keys = found.slice(0, this.options.maxKeys);
    keys.complete = complete && found.length <= this.options.maxKeys;
    return keys;
  }

  /** The queue spec a key belongs to, with its other sets: null when no --queue names it. */
  queueOf(key) {
    for (const spec of this.options.queues) {
      const part = wildcardPart(spec.queue, key);
      if (part === null) continue;
      // A key the queue's pattern matches that is one of the queue's other sets.
      const companion = [spec.inflight, spec.dead, spec.deliveries].some((t) => t !== null && isPattern(t) && wildcardPart(t, key) !== null);
      if (companion) continue;
      return { key, inflight: fill(spec.inflight, part), dead: fill(spec.dead, part), deliveries: fill(spec.deliveries, part) };
    }
    return null;
  }

  async queues() {
    const seen = new Map();
    for (const spec of this.options.queues) {
      for (const key of await this.zsets(spec.queue)) {
        const queue = this.queueOf(key);
        if (queue) seen.set(key.toString('hex'), queue);
      }
    }
    return [...seen.values()];
  }

  queueStats(queue) {
    const sets = {};
    for (const name of ['inflight', 'dead', 'deliveries']) if (queue[name]) sets[name] = queue[name];
    return this.z.delayStats(queue.key, sets);
  }

  /** A page of a sorted set, lowest score first: [{ member, score, deliveries }]. */
  async page(key, offset, count, deliveries) {
    const flat = await this.client.zrangeBuffer(key, offset, offset + count - 1, 'WITHSCORES');
    const rows = [];
    for (let i = 0; i < flat.length; i += 2) rows.push({ member: flat[i], score: Number(flat[i + 1]), deliveries: null });
    if (deliveries && rows.length > 0) {
      const counts = await this.client.zmscore(deliveries, ...rows.map((row) => row.member));
      counts.forEach((count, i) => (rows[i].deliveries = count === null ? 0 : Number(count)));
    }
    return rows;
  }

  /** Boards, but the staging keys of merges in progress (listed under merges). */
  async boards() {
    const all = [];
    for (const pattern of this.options.boards) all.push(...(await this.zsets(pattern)));
    return unique(all).filter((key) => !this.options.stagings.some((staging) => globMatches(staging, key)));
  }

  boardStats(key) {
    return this.z.rankStats(key);
  }

  top(key, offset, count) {
    return this.z.rankTop(key, count, { offset });
  }

  async lookup(key, member) {
    const [entry, around] = await Promise.all([this.z.rankGet(key, member), this.z.rankAround(key, member, 5)]);
    return { entry, around };
  }

  async rateLogs() {
    const all = [];
    for (const spec of this.options.rates) {
      for (const key of await this.zsets(spec.pattern)) all.push({ key, windows: spec.windows });
    }
    return all;
  }

  rateStats(log) {
    return this.z.rateStats(log.key, log.windows);
  }

  async recentLists() {
    const all = [];
    for (const pattern of this.options.recents) all.push(...(await this.zsets(pattern)));
    return unique(all);
  }

  async recentItems(key, count) {
    const flat = await this.client.zrevrangeBuffer(key, 0, count - 1, 'WITHSCORES');
    const rows = [];
    for (let i = 0; i < flat.length; i += 2) rows.push({ member: flat[i], score: Number(flat[i + 1]) });
    return rows;
  }

  async merges() {
    const all = [];
    for (const pattern of this.options.stagings) all.push(...(await this.zsets(pattern)));
    return Promise.all(
      unique(all).map(async (key) => ({ key, members: await this.client.zcard(key), ttlMs: await this.client.pttl(key) })),
    );
  }

  zcard(key) {
    return this.client.zcard(key);
  }

  /** Server facts for the overview: version, mode, INFO zkit of each master. */
  async server() {
    const nodes = [];
    for (const node of await this.masters()) {
      const info = parseInfo(await node.info('server'));
      const zkitInfo = parseInfo(await node.info('zkit'));
      nodes.push({ address: `${node.options.host}:${node.options.port}`, version: info.redis_version ?? info.valkey_version, zkit: zkitInfo });
    }
    return nodes;
  }

  // ---- confirmed writes ----

  keysOf(queue, withDeliveries) {
    return withDeliveries && queue.deliveries ? [queue.deliveries] : [];
  }

  retryDead(queue, tasks) {
    const keys = [queue.dead, queue.key, ...this.keysOf(queue, true)];
    return this.client.eval(SCRIPTS.retry, keys.length, ...keys, ...tasks);
  }

  /** Every dead task back in the queue, in batches; returns [moved, whether any remain]. */
  async retryAllDead(queue) {
    const keys = [queue.dead, queue.key, ...this.keysOf(queue, true)];
    let moved = 0;
    for (let i = 0; i < RETRY_BATCHES; i++) {
      const batch = await this.client.eval(SCRIPTS.retryBatch, keys.length, ...keys, RETRY_BATCH);
      moved += batch;
      if (batch < RETRY_BATCH) return [moved, false];
    }
    return [moved, (await this.client.zcard(queue.dead)) > 0];
  }

  promote(queue, task) {
    return this.client.eval(SCRIPTS.promote, 1, queue.key, task);
  }

  remove(queue, set, task) {
    const keys = [queue[set], ...this.keysOf(queue, true)];
    return this.client.eval(SCRIPTS.remove, keys.length, ...keys, task);
  }
}

/** Whether a key (bytes) matches a SCAN pattern: `*`, `?`, `[...]` and `\\` escapes, as Redis's glob. */
export function globMatches(pattern, key) {
  // Byte for byte: both as latin1 strings.
  const source = Buffer.from(pattern).toString('latin1');
  let regex = '';
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '*') regex += '[\\s\\S]*';
    else if (c === '?') regex += '[\\s\\S]';
    else if (c === '\\' && i + 1 < source.length) regex += escapeRegex(source[++i]);
    else if (c === '[') {
      const end = source.indexOf(']', i + 1);
      if (end < 0) regex += '\\[';
      else {
        const body = source.slice(i + 1, end).replace(/\\/g, '\\\\');
        regex += body.startsWith('^') ? `[^${body.slice(1)}]` : `[${body}]`;
        i = end;
      }
    } else regex += escapeRegex(c);
  }
  return new RegExp(`^${regex}$`).test(Buffer.from(key).toString('latin1'));
}

const escapeRegex = (c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function unique(keys) {
  const seen = new Map();
  for (const key of keys) seen.set(key.toString('hex'), key);
  return [...seen.values()].sort(Buffer.compare);
}

function parseInfo(text) {
  const fields = {};
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) fields[line.slice(0, at)] = line.slice(at + 1);
  }
  return fields;
}

/** What each write runs, in words, for its confirmation page. */
export function describeWrite(action, queue, task) {
  const d = queue.deliveries ? ` and ZREM ${show(queue.deliveries)} (its delivery count)` : '';
  switch (action) {
    case 'retry':
      return `ZREM ${show(queue.dead)} ${show(task)}, then ZADD ${show(queue.key)} <server now> ${show(task)}${d}: the task is due now, with a fresh count of deliveries. One script: all of it or nothing.`;
    case 'retry-all':
      return `For every task in ${show(queue.dead)}, earliest first, ${RETRY_BATCH} per script: ZREM ${show(queue.dead)} task, ZADD ${show(queue.key)} <server now> task${d}.`;
    case 'promote':
      return `ZADD ${show(queue.key)} XX CH <server now> ${show(task)}: due now, if it is still waiting in the queue.`;
    case 'delete-ready':
    case 'delete-inflight':
    case 'delete-dead': {
      const set = { 'delete-ready': queue.key, 'delete-inflight': queue.inflight, 'delete-dead': queue.dead }[action];
      return `ZREM ${show(set)} ${show(task)}${d}. The task is gone for good.`;
    }
    default:
      throw new Error(`unknown action ${action}`);
  }
}

/** A key, task or member as text: UTF-8 where it is, bytes as \\xNN where not. */
export function show(bytes) {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(String(bytes));
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(buffer);
    return text.replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  } catch {
    return [...buffer].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`)).join('');
  }
}
