// The console's HTTP server: GET pages read; writes exist only with
// --writable, and each takes two POSTs (a confirmation page, then the
// write), both carrying this process's token and sent from the console's
// own origin. On every address it listens on, the Host header must be a
// loopback name or one --allow-host gave, so a web page elsewhere cannot
// read the console (and its token) through DNS rebinding. A page answers
// within ANSWER_TIMEOUT_MS whatever Redis does.

import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

import * as pages from './pages.mjs';
import { ANSWER_TIMEOUT_MS, describeWrite, show, Store } from './store.mjs';

const PAGE = 50;
/** The largest offset a page takes: the index of its last row is still an exact integer. */
const MAX_OFFSET = Number.MAX_SAFE_INTEGER - PAGE;
/** A write's banner waits this long for the page its redirect leads to; at most this many wait. */
const BANNER_TTL_MS = 10 * 60_000;
const BANNERS_KEPT = 1000;

class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

const fromId = (text) => {
  if (typeof text !== 'string' || !/^[A-Za-z0-9_-]*$/.test(text)) throw new HttpError(400, 'a key or task id must be base64url');
  return Buffer.from(text, 'base64url');
};

const offsetOf = (params) => {
  const text = params.get('offset') ?? '0';
  const offset = /^[0-9]{1,16}$/.test(text) ? Number(text) : NaN;
  if (!(offset <= MAX_OFFSET)) throw new HttpError(400, `offset: a whole number from 0 to ${MAX_OFFSET}`);
  return offset;
};

/** The name a Host header or an origin addresses (lower case, IPv6 in brackets), or null when it names none. */
const hostOf = (text) => {
  try {
    return new URL(`http://${text}`).hostname;
  } catch {
    return null;
  }
};

/** Whether an Origin header is the origin of the address `host` (a Host header): the same name and port. */
const sameOrigin = (origin, host) => {
  try {
    const from = new URL(origin);
    return (from.protocol === 'http:' || from.protocol === 'https:') && from.host === new URL(`http://${host}`).host;
  } catch {
    return false;
  }
};

const inWords = (list) => (list.length > 1 ? `${list.slice(0, -1).join(', ')} and ${list.at(-1)}` : list[0]);

async function readForm(request) {
  let size = 0;
  const chunks = [];
  for await (const chunk of request) {
    size += chunk.length;
    if (size > 65536) throw new HttpError(413, 'form too large');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString());
}

/** The set each tab of a queue's page lists, as the queue names it. */
const TAB_SETS = { ready: 'key', inflight: 'inflight', dead: 'dead' };

const TITLES = {
  retry: 'Retry the dead task',
  'retry-all': 'Retry every dead task',
  promote: 'Promote the task to now',
  'delete-ready': 'Delete the task',
  'delete-inflight': 'Delete the task',
  'delete-dead': 'Delete the dead task',
  pause: 'Pause the queue',
  resume: 'Resume the queue',
};
/** The writes that act on the queue, not on one task. */
const QUEUE_WIDE = new Set(['retry-all', 'pause', 'resume']);

export function createConsole(options, log = console.log) {
  const store = new Store(options);
  const token = randomBytes(24).toString('hex');
  const base = { writable: options.writable, token, cluster: options.cluster, where: `${options.shownUrl}${options.cluster ? ' (cluster)' : ''}` };
  const allowedHosts = new Set(options.allowedHosts);
  const wrongHost = `this console answers to ${inWords([...allowedHosts])} only: --allow-host NAME adds the name it is served as`;

  // The banners of this console's writes, by the one-time id each write's redirect carries.
  const banners = new Map();
  const rememberBanner = (text) => {
    const id = randomBytes(16).toString('hex');
    banners.set(id, { text, at: Date.now() });
    // Oldest first: drop the expired, and the oldest past the cap.
    for (const [old, { at }] of banners) {
      if (banners.size <= BANNERS_KEPT && Date.now() - at < BANNER_TTL_MS) break;
      banners.delete(old);
    }
    return id;
  };
  const takeBanner = (id) => {
    const banner = id === null ? undefined : banners.get(id);
    if (banner === undefined) return undefined;
    banners.delete(id);
    return Date.now() - banner.at < BANNER_TTL_MS ? banner.text : undefined;
  };

  /** `work`'s result, or a RedisFailure once ANSWER_TIMEOUT_MS have passed. */
  async function withinDeadline(work) {
    let timer;
    const deadline = new Promise((resolve, reject) => {
      timer = setTimeout(() => reject(store.noAnswer(ANSWER_TIMEOUT_MS)), ANSWER_TIMEOUT_MS);
    });
    try {
      return await Promise.race([work, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  const queueFor = (text) => {
    const queue = store.queueOf(fromId(text));
    if (!queue) throw new HttpError(404, 'no --queue pattern names this key');
    return queue;
  };

  const routes = {
    async '/'(ctx) {
      const [nodes, queues, boards, merges, rates, recents] = await Promise.all([
        store.server(),
        store.queues(),
        store.boards(),
        store.merges(),
        store.rateLogs(),
        store.recentLists(),
      ]);
      const counts = { queues: queues.length, boards: boards.length, merges: merges.length, rates: rates.length, recents: recents.length };
      return pages.overview(ctx, { nodes, counts });
    },
    async '/queues'(ctx) {
      const queues = await store.queues();
      const rows = await Promise.all(queues.map(async (queue) => ({ queue, stats: await store.queueStats(queue) })));
      return pages.queueList(ctx, rows);
    },
    async '/queue'(ctx, params) {
      const queue = queueFor(params.get('k'));
      const tab = params.get('tab') ?? 'ready';
      if (!Object.hasOwn(TAB_SETS, tab)) throw new HttpError(400, 'tab: ready, inflight or dead');
      const set = TAB_SETS[tab];
      if (!queue[set]) throw new HttpError(404, `this queue has no ${tab} set`);
      const offset = offsetOf(params);
      const [stats, rows] = await Promise.all([store.queueStats(queue), store.page(queue, set, offset, PAGE)]);
      return pages.queuePage(ctx, { queue, stats, tab, offset, count: PAGE, rows });
    },
    async '/task'(ctx, params) {
      const queue = queueFor(params.get('k'));
      const task = fromId(params.get('t'));
      const [stats, job] = await Promise.all([store.queueStats(queue), store.job(queue, task)]);
      return pages.taskPage(ctx, { queue, task, stats, job });
    },
    async '/boards'(ctx) {
      const keys = await store.boards();
      const rows = await Promise.all(keys.map(async (key) => ({ key, stats: await store.boardStats(key) })));
      return pages.boardList(ctx, rows, keys);
    },
    async '/board'(ctx, params) {
      const key = fromId(params.get('k'));
      if (!store.isBoard(key)) throw new HttpError(404, 'no --board pattern names this key');
      const offset = offsetOf(params);
      const member = params.get('member') || undefined;
      const [stats, top, lookup, columns] = await Promise.all([
        store.boardStats(key),
        store.top(key, offset, PAGE),
        member === undefined ? null : store.lookup(key, member),
        store.columnNames(key),
      ]);
      const options = store.boardOptions(key);
      return pages.boardPage(ctx, { key, data: store.dataOf(key), asc: options.asc === true, columns, stats, offset, count: PAGE, top, member, lookup });
    },
    async '/merges'(ctx) {
      const merges = await store.merges();
      return pages.mergeList(ctx, merges, merges);
    },
    async '/rates'(ctx) {
      const logs = await store.rateLogs();
      const rows = await Promise.all(logs.map(async (log) => ({ log, stats: await store.rateStats(log) })));
      return pages.rateList(ctx, rows);
    },
    async '/recent'(ctx, params) {
      if (params.has('k')) {
        const key = fromId(params.get('k'));
        if (!store.isRecentList(key)) throw new HttpError(404, 'no --recent pattern names this key');
        return pages.recentPage(ctx, { key, items: await store.recentItems(key, PAGE) });
      }
      const keys = await store.recentLists();
      const rows = await Promise.all(keys.map(async (key) => ({ key, size: await store.zcard(key) })));
      return pages.recentList(ctx, rows);
    },
  };

  /** Checks a write's form (mode, token, queue, action) and says what it would run. */
  function planWrite(form) {
    if (!options.writable) throw new HttpError(403, 'this console is read-only: start it with --writable to change data');
    if (form.get('token') !== token) throw new HttpError(403, 'stale or foreign form: reload the page');
    const actionName = form.get('action');
    if (!(actionName in TITLES)) throw new HttpError(400, 'unknown action');
    const queue = queueFor(form.get('queue'));
    const task = QUEUE_WIDE.has(actionName) ? null : fromId(form.get('task'));
    if (actionName === 'retry-all' || actionName === 'retry' || actionName === 'delete-dead') {
      if (!queue.dead) throw new HttpError(400, 'this queue has no dead-letter set');
    }
    if (actionName === 'delete-inflight' && !queue.inflight) throw new HttpError(400, 'this queue has no in-flight set');
    if ((actionName === 'pause' || actionName === 'resume') && !queue.data) throw new HttpError(400, 'this queue has no DATA hash, where a pause is kept');
    const back = form.get('back') ?? '/queues';
    if (!back.startsWith('/') || back.startsWith('//')) throw new HttpError(400, 'bad return address');
    return { actionName, queue, task, back, what: describeWrite(actionName, queue, task) };
  }

  async function runWrite({ actionName, queue, task }) {
    switch (actionName) {
      case 'retry':
        return (await store.retryDead(queue, [task])) === 1 ? `${show(task)} is due now in ${show(queue.key)}.` : `${show(task)} was no longer dead: nothing changed.`;
      case 'retry-all': {
        const [moved, more] = await store.retryAllDead(queue);
        return `${moved} dead tasks are due now in ${show(queue.key)}${more ? '; more remain, retry again' : ''}.`;
      }
      case 'pause':
        return (await store.pause(queue)) ? `${show(queue.key)} is paused.` : `${show(queue.key)} was paused already: nothing changed.`;
      case 'resume':
        return (await store.resume(queue)) ? `${show(queue.key)} is resumed.` : `${show(queue.key)} was not paused: nothing changed.`;
      case 'promote':
        return (await store.promote(queue, task)) === 1 ? `${show(task)} is due now.` : `${show(task)} was no longer waiting: nothing changed.`;
      default: {
        const set = { 'delete-ready': 'key', 'delete-inflight': 'inflight', 'delete-dead': 'dead' }[actionName];
        return (await store.remove(queue, set, task)) === 1 ? `${show(task)} deleted.` : `${show(task)} was already gone.`;
      }
    }
  }

  async function handle(request, response) {
    const ctx = { ...base };
    const send = (status, html, headers = {}) => {
      response.writeHead(status, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'x-frame-options': 'DENY',
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
        // Not no-referrer: with it a browser sends its forms with Origin: null, which the Origin check refuses.
        'referrer-policy': 'same-origin',
        ...headers,
      });
      response.end(html);
    };
    try {
      const host = request.headers.host ?? '';
      if (!allowedHosts.has(hostOf(host))) throw new HttpError(421, wrongHost);
      // A browser sends Origin with every POST and with other origins' requests.
      const origin = request.headers.origin;
      if ((origin !== undefined || request.method === 'POST') && !sameOrigin(origin, host)) {
        throw new HttpError(403, `refused: a request from another origin (${origin ?? 'none given'}); the console takes writes from its own pages only`);
      }
      const url = new URL(request.url, 'http://console');
      if (request.method === 'GET' && Object.hasOwn(routes, url.pathname)) {
        ctx.flash = takeBanner(url.searchParams.get('done'));
        const page = withinDeadline(
          (async () => {
            await store.connected();
            return routes[url.pathname](ctx, url.searchParams);
          })(),
        );
        return send(200, await page);
      }
      if (request.method === 'POST' && url.pathname === '/confirm') {
        const plan = planWrite(await readForm(request));
        const fields = { action: plan.actionName, queue: plan.queue.key.toString('base64url'), task: plan.task ? plan.task.toString('base64url') : '', back: plan.back };
        return send(200, pages.confirmPage(ctx, { title: TITLES[plan.actionName], what: plan.what, fields }));
      }
      if (request.method === 'POST' && url.pathname === '/do') {
        const plan = planWrite(await readForm(request));
        await store.connected();
        const done = await runWrite(plan);
        log(`zkit-console: ${plan.actionName} on ${show(plan.queue.key)}${plan.task ? ` task ${show(plan.task)}` : ''}: ${done}`);
        const back = new URL(plan.back, 'http://console');
        back.searchParams.set('done', rememberBanner(done));
        return send(303, '', { location: back.pathname + back.search });
      }
      throw new HttpError(request.method === 'GET' || request.method === 'POST' ? 404 : 405, 'no such page');
    } catch (error) {
      if (error instanceof HttpError) return send(error.status, pages.errorPage(ctx, error.status, error.message));
      const failure = store.failure(error);
      if (failure) return send(failure.status, pages.errorPage(ctx, failure.status, failure.message, failure.title));
      log(`zkit-console: ${request.method} ${request.url.split("?")[0]}: ${error.message}`);
      return send(500, pages.errorPage(ctx, 500, error.message));
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error) => {
      response.destroy(error);
    });
  });
  return {
    server,
    store,
    listen: () =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port, options.host, () => resolve(server.address()));
      }),
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await store.close();
    },
  };
}
