// The console's HTTP server: GET pages read; writes exist only with
// --writable, and each takes two POSTs (a confirmation page, then the
// write), both carrying this process's token. On loopback the Host header
// must name loopback too, so a web page elsewhere cannot reach the console
// through DNS rebinding.

import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

import * as pages from './pages.mjs';
import { describeWrite, show, Store } from './store.mjs';

const PAGE = 50;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

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
  const offset = Number(params.get('offset') ?? 0);
  if (!Number.isInteger(offset) || offset < 0) throw new HttpError(400, 'offset: a whole number, 0 or more');
  return offset;
};

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

const TITLES = {
  retry: 'Retry the dead task',
  'retry-all': 'Retry every dead task',
  promote: 'Promote the task to now',
  'delete-ready': 'Delete the task',
  'delete-inflight': 'Delete the task',
  'delete-dead': 'Delete the dead task',
};

export function createConsole(options, log = console.log) {
  const store = new Store(options);
  const token = randomBytes(24).toString('hex');
  const base = { writable: options.writable, token, cluster: options.cluster, where: `${options.shownUrl}${options.cluster ? ' (cluster)' : ''}` };
  const loopback = LOOPBACK.has(options.host);

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
      const set = { ready: queue.key, inflight: queue.inflight, dead: queue.dead }[tab];
      if (!set) throw new HttpError(404, `this queue has no ${tab} set`);
      const offset = offsetOf(params);
      // A dead task's count was forgotten when it died.
      const deliveries = tab === 'dead' ? null : queue.deliveries;
      const [stats, rows] = await Promise.all([store.queueStats(queue), store.page(set, offset, PAGE, deliveries)]);
      return pages.queuePage(ctx, { queue, stats, tab, offset, count: PAGE, rows });
    },
    async '/boards'(ctx) {
      const keys = await store.boards();
      const rows = await Promise.all(keys.map(async (key) => ({ key, stats: await store.boardStats(key) })));
      return pages.boardList(ctx, rows, keys);
    },
    async '/board'(ctx, params) {
      const key = fromId(params.get('k'));
      const offset = offsetOf(params);
      const member = params.get('member') || undefined;
      const [stats, top, lookup] = await Promise.all([
        store.boardStats(key),
        store.top(key, offset, PAGE),
        member === undefined ? null : store.lookup(key, member),
      ]);
      return pages.boardPage(ctx, { key, stats, offset, count: PAGE, top, member, lookup });
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
    const task = actionName === 'retry-all' ? null : fromId(form.get('task'));
    if (actionName === 'retry-all' || actionName === 'retry' || actionName === 'delete-dead') {
      if (!queue.dead) throw new HttpError(400, 'this queue has no dead-letter set');
    }
    if (actionName === 'delete-inflight' && !queue.inflight) throw new HttpError(400, 'this queue has no in-flight set');
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
        'referrer-policy': 'no-referrer',
        ...headers,
      });
      response.end(html);
    };
    try {
      const host = (request.headers.host ?? '').replace(/:\d+$/, '');
      if (loopback && !LOOPBACK.has(host)) throw new HttpError(421, 'this console answers on loopback only');
      const url = new URL(request.url, 'http://console');
      ctx.flash = url.searchParams.get('done') ?? undefined;
      if (request.method === 'GET' && routes[url.pathname]) {
        return send(200, await routes[url.pathname](ctx, url.searchParams));
      }
      if (request.method === 'POST' && url.pathname === '/confirm') {
        const plan = planWrite(await readForm(request));
        const fields = { action: plan.actionName, queue: plan.queue.key.toString('base64url'), task: plan.task ? plan.task.toString('base64url') : '', back: plan.back };
        return send(200, pages.confirmPage(ctx, { title: TITLES[plan.actionName], what: plan.what, fields }));
      }
      if (request.method === 'POST' && url.pathname === '/do') {
        const plan = planWrite(await readForm(request));
        const done = await runWrite(plan);
        log(`zkit-console: ${plan.actionName} on ${show(plan.queue.key)}${plan.task ? ` task ${show(plan.task)}` : ''}: ${done}`);
        const back = new URL(plan.back, 'http://console');
        back.searchParams.set('done', done);
        return send(303, '', { location: back.pathname + back.search });
      }
      throw new HttpError(request.method === 'GET' || request.method === 'POST' ? 404 : 405, 'no such page');
    } catch (error) {
      const status = error instanceof HttpError ? error.status : 500;
      if (status === 500) log(`zkit-console: ${request.method} ${request.url.split('?')[0]}: ${error.message}`);
      return send(status, pages.errorPage(ctx, status, error.message));
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
