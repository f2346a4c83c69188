// What the console reads and writes, through zkit's Node client (stats,
// boards; routed to the right cluster node) and ioredis (native reads,
// SCAN, the confirmed writes). Keys and tasks are Buffers throughout: any
// byte string is a key or a task, and an action names exactly the bytes it
// was shown.

import { once } from 'node:events';

import Redis, { ReplyError } from 'ioredis';
import { zkit } from 'zkit';

/** How long one try to connect may take, the TLS handshake and the login included. */
const CONNECT_TIMEOUT_MS = 2000;
/** How long a page waits for a connection that is not up (a try, or the next one, to finish). */
const CONNECT_WAIT_MS = 3000;
/** How long a page waits for Redis in all: then it answers that Redis did not. */
export const ANSWER_TIMEOUT_MS = 4000;
/** The pause before each try to connect again, growing to this at most. */
const RETRY_PAUSE_MAX_MS = 1000;

const SCAN_COUNT = 1000;
/** Keys SCAN looks at per pattern and node, at most: a page stays quick on a large keyspace. */
const SCAN_BUDGET = 100_000;

const isPattern = (name) => /[*?[]/.test(name);
/** Whether `key` is the key a --board, --recent or --staging name names, or one its SCAN pattern matches. */
const names = (name, key) => (isPattern(name) ? globMatches(name, key) : Buffer.from(name).equals(key));

/**
 * Redis could not serve a page: unreachable, it refused the login, TLS
 * failed, it did not answer in time, or it answered a command with an
 * error. `title` heads the page.
 */
export class RedisFailure extends Error {
  constructor(status, title, message) {
    super(message);
    this.status = status;
    this.title = title;
  }
}

/** Redis's refusals of a login: a wrong user or password, or none given. */
const LOGIN_REFUSED = /^(WRONGPASS|NOAUTH|ERR invalid password|ERR invalid username)/;
/** What ioredis rejects a command with when the connection is lost or never came up. */
const LOST = /^(Connection is closed|Command timed out|Stream isn't writeable|Cluster isn't ready|Failed to refresh slots cache|None of startup nodes is available)/;

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

// The confirmed writes: zkit's own commands where it has one (DELAY.RETRY,
// DELAY.PAUSE, DELAY.RESUME), else native commands in one script each, so
// each is atomic, replicates its effects as usual (ZREM, ZADD, HDEL), and
// reads the server's clock for "now".
/** Every field the DATA hash holds for a task, each `<prefix><task>`: payload, deadline, last failure reason, deliveries it died with, holder. */
const JOB_DATA_PREFIXES = ['p:', 'x:', 'r:', 'd:', 'w:'].map((prefix) => `'${prefix}'`).join(', ');
const NOW = "local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000)";
const SCRIPTS = {
  /** KEYS queue; ARGV task: due now if it is still waiting in the queue. */
  promote: `${NOW}
return redis.call('ZADD', KEYS[1], 'XX', 'CH', now, ARGV[1])`,
  /** KEYS set[, deliveries][, data]; ARGV task, then 1 when KEYS[2] is the deliveries set: removed, with its delivery count and its data. */
  remove: `local removed = redis.call('ZREM', KEYS[1], ARGV[1])
if removed == 0 then return 0 end
local data = 2
if ARGV[2] == '1' then
  redis.call('ZREM', KEYS[2], ARGV[1])
  data = 3
end
if KEYS[data] then
  local fields = {}
  for _, prefix in ipairs({ ${JOB_DATA_PREFIXES} }) do fields[#fields + 1] = prefix .. ARGV[1] end
  redis.call('HDEL', KEYS[data], unpack(fields))
end
return 1`,
};
/** Dead tasks one "retry all" moves per DELAY.RETRY, and calls per click. */
export const RETRY_BATCH = 100;
const RETRY_BATCHES = 100;
/** A task's fields in the DATA hash a page shows, each `<prefix><task>`: payload, last failure reason, holder, deliveries it died with. */
const JOB_FIELDS = ['p:', 'r:', 'w:', 'd:'];

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
      connectTimeout: CONNECT_TIMEOUT_MS,
      commandTimeout: ANSWER_TIMEOUT_MS,
      retryStrategy: (tries) => Math.min(tries * 100, RETRY_PAUSE_MAX_MS),
    };
    const seed = { host: url.hostname, port: Number(url.port || 6379) };
    this.client = options.cluster
      ? new Redis.Cluster([seed], {
          redisOptions: connection,
          slotsRefreshTimeout: CONNECT_TIMEOUT_MS,
          clusterRetryStrategy: connection.retryStrategy,
          dnsLookup: (address, callback) => callback(null, address),
        })
      : new Redis({ ...seed, ...connection, lazyConnect: false });
    this.z = zkit(this.client);
    // The last try to connect that failed, for the pages that ask while it is down.
    this.lastError = null;
    this.waiting = null;
    this.client.on('error', (error) => (this.lastError = error));
    this.client.on('ready', () => (this.lastError = null));
  }

  async close() {
    if (this.client.status === 'ready') await this.client.quit();
    else this.client.disconnect();
  }

  /**
   * Resolves once the client knows its server (a cluster client, its
   * slots); rejects with a RedisFailure when the next try to connect fails,
   * or none succeeds within CONNECT_WAIT_MS. The pages that ask meanwhile
   * share one wait.
   */
  connected() {
    if (this.client.status === 'ready') return Promise.resolve();
    if (this.client.status === 'end') return Promise.reject(this.unavailable(new Error('the console closed its connection')));
    this.waiting ??= once(this.client, 'ready', { signal: AbortSignal.timeout(CONNECT_WAIT_MS) })
      .catch((error) => {
        if (error.name !== 'AbortError') throw this.unavailable(error);
        throw this.lastError ? this.unavailable(this.lastError) : this.noAnswer(CONNECT_WAIT_MS);
      })
      .finally(() => (this.waiting = null));
    return this.waiting;
  }

  /** The server as pages name it. */
  get where() {
    return `${this.options.cluster ? 'Redis Cluster node' : 'Redis at'} ${this.options.shownUrl}`;
  }

  /** Why the connection is not up, in words for a page: Redis unreachable, its login refused, TLS failed, or no connection in time. */
  unavailable(error) {
    const where = this.where;
    const cause = error.lastNodeError ?? error;
    const text = String(cause.message).replace(/\.$/, '');
    const tls = this.options.redisUrl.protocol === 'rediss:';
    const failure = (status, message) => new RedisFailure(status, 'Redis unavailable', message);
    if (cause instanceof ReplyError && LOGIN_REFUSED.test(text)) {
      return failure(502, `${where} refused the console's login: ${text}. The user is the one --url names, the password ZKIT_CONSOLE_PASSWORD's (or the URL's).`);
    }
    if (tls && /CERT|SSL|TLS|certificate/i.test(`${cause.code ?? ''} ${text}`)) {
      return failure(502, `The TLS handshake with ${where} failed: ${text}. --tls-ca FILE names the CA that signed the server's certificate.`);
    }
    if (cause.code === 'ETIMEDOUT') {
      return failure(504, `${where} did not finish connecting within ${CONNECT_TIMEOUT_MS / 1000} s${tls ? ', its TLS handshake included: does the server speak TLS on that port?' : '.'}`);
    }
    return failure(502, `${where} is unreachable: ${text}.`);
  }

  /** Redis did not answer a page within `ms`. */
  noAnswer(ms) {
    const tls = this.options.redisUrl.protocol === 'rediss:';
    const why = this.client.status === 'ready' ? '' : tls ? ': the connection, its TLS handshake included, did not come up' : ': the connection did not come up';
    return new RedisFailure(504, 'Redis unavailable', `${this.where} did not answer within ${ms / 1000} s${why}.`);
  }

  /** The page an error from Redis or from the connection to it makes (a RedisFailure); null for any other error, which is the console's own fault. */
  failure(error) {
    if (error instanceof RedisFailure) return error;
    if (error instanceof ReplyError) {
      if (LOGIN_REFUSED.test(error.message)) return this.unavailable(error);
      return new RedisFailure(502, 'Redis error', `${this.where} answered with an error: ${error.message}`);
    }
    if (error.name === 'ZkitNotLoaded') return new RedisFailure(502, 'zkit not loaded', error.message);
    if (error.name === 'MaxRetriesPerRequestError' || error.name === 'ClusterAllFailedError' || LOST.test(error.message)) {
      return this.unavailable(this.lastError ?? error);
    }
    return null;
  }

  /** Whether a key is a board: a --board name or pattern names it, and no --staging one. */
  isBoard(key) {
    return this.options.boards.some((spec) => names(spec.pattern, key)) && !this.options.stagings.some((name) => names(name, key));
  }

  /** A board's hash of one kind (`data`: its member data; `columns`: its columns): from the first --board spec that names the board and has one, else null. */
  hashOf(key, kind) {
    for (const spec of this.options.boards) {
      if (spec[kind] === null || spec[kind] === undefined) continue;
      const part = wildcardPart(spec.pattern, key);
      if (part !== null) return fill(spec[kind], part);
    }
    return null;
  }

  /** The member data hash of a board, or null. */
  dataOf(key) {
    return this.hashOf(key, 'data');
  }

  /** RANK's DATA, COLUMNS and ASC options for a board: its data hash and its columns' hash, when it has them, and its order (the first --board spec that names it says). */
  boardOptions(key) {
    const data = this.dataOf(key);
    const columns = this.hashOf(key, 'columns');
    const asc = this.options.boards.find((spec) => names(spec.pattern, key))?.asc ?? false;
    return { ...(data === null ? {} : { data }), ...(columns === null ? {} : { columns }), ...(asc ? { asc } : {}) };
  }

  /** The names of a board's columns, in order, as RANK.COLUMNS wrote them (`i` holds `best worst name`); null for a board without columns. */
  async columnNames(key) {
    const columns = this.hashOf(key, 'columns');
    if (columns === null) return null;
    const count = Number(await this.client.hget(columns, 'columns'));
    if (!Number.isInteger(count) || count < 1) return null;
    const fields = Array.from({ length: count }, (_, i) => String(i + 1));
    const stored = await this.client.hmgetBuffer(columns, ...fields);
    return stored.map((value) => (value === null ? Buffer.alloc(0) : value.subarray(value.indexOf(' ', value.indexOf(' ') + 1) + 1)));
  }

  /** Whether a key is a recently-viewed list: a --recent name or pattern names it. */
  isRecentList(key) {
    return this.options.recents.some((name) => names(name, key));
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
      const companion = [spec.inflight, spec.dead, spec.deliveries, spec.data].some((t) => t !== null && isPattern(t) && wildcardPart(t, key) !== null);
      if (companion) continue;
      return { key, inflight: fill(spec.inflight, part), dead: fill(spec.dead, part), deliveries: fill(spec.deliveries, part), data: fill(spec.data, part) };
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

  /** The queue's other sets and DATA hash, as the stats and job commands' options name them. */
  setsOf(queue) {
    const sets = {};
    for (const name of ['inflight', 'dead', 'deliveries', 'data']) if (queue[name]) sets[name] = queue[name];
    return sets;
  }

  queueStats(queue) {
    return this.z.delayStats(queue.key, this.setsOf(queue));
  }

  /**
   * A page of one of the queue's sets (`set`: key, inflight or dead), lowest
   * score first: [{ member, score, deliveries, payload, reason, worker }].
   * Deliveries are the deliveries set's count, for a dead task the count it
   * died with; the rest is the DATA hash's (null without one, or where it
   * holds none), read in one HMGET.
   */
  async page(queue, set, offset, count) {
    const flat = await this.client.zrangeBuffer(queue[set], offset, offset + count - 1, 'WITHSCORES');
    const rows = [];
    for (let i = 0; i < flat.length; i += 2) rows.push({ member: flat[i], score: Number(flat[i + 1]), deliveries: null, payload: null, reason: null, worker: null });
    if (rows.length === 0) return rows;
    if (set !== 'dead' && queue.deliveries) {
      const counts = await this.client.zmscore(queue.deliveries, ...rows.map((row) => row.member));
      counts.forEach((count, i) => (rows[i].deliveries = count === null ? 0 : Number(count)));
    }
    if (queue.data) {
      const fields = rows.flatMap((row) => JOB_FIELDS.map((prefix) => Buffer.concat([Buffer.from(prefix), row.member])));
      const values = await this.client.hmgetBuffer(queue.data, ...fields);
      rows.forEach((row, i) => {
        const [payload, reason, worker, diedWith] = values.slice(i * JOB_FIELDS.length, (i + 1) * JOB_FIELDS.length);
        Object.assign(row, { payload, reason, worker });
        if (set === 'dead' && diedWith !== null) row.deliveries = Number(diedWith);
      });
    }
    return rows;
  }

  /**
   * One task's state and history, DELAY.JOB's: { state, score, deliveries,
   * lastReason, deadlineMs, worker, payload }, the payload as the bytes
   * the DATA hash holds (the client's reply is text).
   */
  async job(queue, task) {
    const [job, payload] = await Promise.all([
      this.z.delayJob(queue.key, task, this.setsOf(queue)),
      queue.data ? this.client.hgetBuffer(queue.data, Buffer.concat([Buffer.from('p:'), task])) : null,
    ]);
    return { ...job, payload };
  }

  /** Boards, but the staging keys of merges in progress (listed under merges). */
  async boards() {
    const all = [];
    for (const spec of this.options.boards) all.push(...(await this.zsets(spec.pattern)));
    return unique(all).filter((key) => this.isBoard(key));
  }

  boardStats(key) {
    return this.z.rankStats(key, this.boardOptions(key).asc ? { asc: true } : {});
  }

  /** A page of the board: [{ rank, member, total, data }], data only with a data hash (null where a member has none). */
  top(key, offset, count) {
    return this.z.rankTop(key, count, { offset, ...this.boardOptions(key) });
  }

  async lookup(key, member) {
    const options = this.boardOptions(key);
    const [entry, around] = await Promise.all([this.z.rankGet(key, member, options), this.z.rankAround(key, member, 5, options)]);
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

  /** Server facts for the overview, for each master: its server's version, zkit's (the module's or the library's) and INFO zkit. */
  async server() {
    const nodes = [];
    for (const node of await this.masters()) {
      const info = parseInfo(await node.info('server'));
      const zkitInfo = parseInfo(await node.info('zkit'));
      const found = zkitInfo.zkit_version ? { engine: 'module', version: zkitInfo.zkit_version } : await libraryOn(node);
      nodes.push({ address: `${node.options.host}:${node.options.port}`, server: info.redis_version ?? info.valkey_version, ...found, counters: zkitInfo });
    }
    return nodes;
  }

  // ---- confirmed writes ----

  /** DELAY.RETRY, with the queue's DATA hash: each task still dead is due now, with its payload and last failure reason. */
  retryDead(queue, tasks) {
    return this.z.delayRetry(queue.dead, queue.key, tasks, queue.data ? { data: queue.data } : {});
  }

  /** Every dead task back in the queue, earliest first, in batches; returns [moved, whether any remain]. */
  async retryAllDead(queue) {
    let moved = 0;
    for (let i = 0; i < RETRY_BATCHES; i++) {
      const batch = await this.client.zrangeBuffer(queue.dead, 0, RETRY_BATCH - 1);
      if (batch.length === 0) return [moved, false];
      // A task another client retried or removed meanwhile is not counted.
      moved += await this.retryDead(queue, batch);
    }
    return [moved, (await this.client.zcard(queue.dead)) > 0];
  }

  pause(queue) {
    return this.z.delayPause(queue.key, queue.data);
  }

  resume(queue) {
    return this.z.delayResume(queue.key, queue.data);
  }

  promote(queue, task) {
    return this.client.eval(SCRIPTS.promote, 1, queue.key, task);
  }

  remove(queue, set, task) {
    const keys = [queue[set], queue.deliveries, queue.data].filter((key) => key !== null);
    return this.client.eval(SCRIPTS.remove, keys.length, ...keys, task, queue.deliveries ? '1' : '0');
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

/** zkit's Functions library on a node without the module: { engine: 'functions', version }, or { engine: null } when it has neither. */
async function libraryOn(node) {
  try {
    return { engine: 'functions', version: String(await node.call('FCALL_RO', 'zkit_version', '0')) };
  } catch (error) {
    // Function not found; unknown command on a server without functions (before 7.0).
    if (error instanceof ReplyError && /function not found|unknown command/i.test(error.message)) return { engine: null, version: null };
    throw error;
  }
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
  const data = queue.data ? ` DATA ${show(queue.data)}` : '';
  const kept = queue.data ? ', with its payload and last failure reason' : '';
  switch (action) {
    case 'retry':
      return `DELAY.RETRY ${show(queue.dead)} ${show(queue.key)}${data} TASKS ${show(task)}: the task is due now${kept}, its deliveries counted from 0.`;
    case 'retry-all':
      return `For every task in ${show(queue.dead)}, earliest first, ${RETRY_BATCH} per call: DELAY.RETRY ${show(queue.dead)} ${show(queue.key)}${data} TASKS task ...: due now${kept}.`;
    case 'pause':
      return `DELAY.PAUSE ${show(queue.key)} ${show(queue.data)}: polls that name ${show(queue.data)} deliver nothing until it is resumed; tasks are still added, leased ones still run.`;
    case 'resume':
      return `DELAY.RESUME ${show(queue.key)} ${show(queue.data)}: polls deliver again, blocked ones at once.`;
    case 'promote':
      return `ZADD ${show(queue.key)} XX CH <server now> ${show(task)}: due now, if it is still waiting in the queue.`;
    case 'delete-ready':
    case 'delete-inflight':
    case 'delete-dead': {
      const set = { 'delete-ready': queue.key, 'delete-inflight': queue.inflight, 'delete-dead': queue.dead }[action];
      const data = queue.data ? `, HDEL ${show(queue.data)} of its payload and history` : '';
      return `ZREM ${show(set)} ${show(task)}${d}${data}. The task is gone for good.`;
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
