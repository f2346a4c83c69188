// When Redis cannot be used (nothing listens, it refuses the console's
// password, the TLS handshake fails or never finishes), every page answers
// within 5 s with an error page that says which, and waiting requests leave
// nothing behind on the client.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { id as k } from '../src/pages.mjs';

import { freePort, httpRequest, selfSignedCertificate, startConsole, startServer, startSilentListener, useBrowser } from './helpers.mjs';

const ANSWER_WITHIN_MS = 5000;
/** Every page that reads Redis, the ones that name a key with a key their default patterns allow. */
const PAGES = ['/', '/queues', `/queue?k=${k('{jobs}')}`, `/queue?k=${k('{jobs}')}&tab=dead`, '/boards', `/board?k=${k('gifts:room:42')}`, '/merges', '/rates', '/recent', `/recent?k=${k('MemberRecentGoods:66')}`];

const session = useBrowser();

const unescapeHtml = (text) => text.replace(/&(amp|lt|gt|quot|#39);/g, (_, e) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]);

/** Every page, all at once: each must answer within 5 s with `status` and an error box matching `message`. */
async function everyPageFails(url, status, message) {
  const answers = await Promise.all(
    PAGES.map(async (page) => {
      const started = Date.now();
      const answer = await httpRequest(`${url}${page}`, { signal: AbortSignal.timeout(ANSWER_WITHIN_MS + 5000) });
      return { page, ms: Date.now() - started, ...answer };
    }),
  );
  for (const { page, ms, status: got, body } of answers) {
    assert.ok(ms < ANSWER_WITHIN_MS, `${page} answered after ${ms} ms`);
    assert.equal(got, status, `${page}: ${body}`);
    const error = /<p class="error">([^<]*)<\/p>/.exec(body);
    assert.ok(error, `${page} has no error box: ${body}`);
    assert.match(unescapeHtml(error[1]), message, page);
    assert.match(body, /<h1>Redis unavailable<\/h1>/, page);
  }
}

/** The overview in the browser: the error page renders, titled, with the error box. */
async function overviewShows(url, status, message) {
  const page = await session.browser.newPage();
  try {
    const response = await page.goto(`${url}/`, { timeout: ANSWER_WITHIN_MS });
    assert.equal(response.status(), status);
    assert.equal(await page.title(), 'Redis unavailable · zkit console');
    assert.match(await page.locator('.error').textContent(), message);
  } finally {
    await page.close();
  }
}

/** How many listeners the console's Redis client holds for the events a page waits on. */
const listenerTotal = (client) => ['ready', 'end', 'error', 'close'].reduce((sum, event) => sum + client.listenerCount(event), 0);

describe('Redis unreachable', () => {
  test('nothing listens on the port: every page says so within 5 s', async () => {
    const port = await freePort();
    const { app, url } = await startConsole(port);
    try {
      const message = new RegExp(`^Redis at redis://127\\.0\\.0\\.1:${port} is unreachable: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}`);
      await everyPageFails(url, 502, message);
      await overviewShows(url, 502, message);
    } finally {
      await app.close();
    }
  });

  test('a cluster whose seed nothing listens on: every page says so within 5 s', async () => {
    const port = await freePort();
    const { app, url } = await startConsole(port, ['--cluster']);
    try {
      await everyPageFails(url, 502, new RegExp(`^Redis Cluster node redis://127\\.0\\.0\\.1:${port} is unreachable: `));
    } finally {
      await app.close();
    }
  });

  test('many requests against a dead Redis leave the client with as many listeners as before', async () => {
    const port = await freePort();
    const { app, url } = await startConsole(port);
    try {
      const round = () => Promise.allSettled(PAGES.map((page) => httpRequest(`${url}${page}`, { signal: AbortSignal.timeout(ANSWER_WITHIN_MS) })));
      // The first round meets the client's first try to connect, with listeners of its own.
      const answers = await round();
      const before = listenerTotal(app.store.client);
      for (let i = 0; i < 4; i++) answers.push(...(await round()));
      assert.equal(listenerTotal(app.store.client), before, `listeners after ${answers.length} requests`);
      assert.deepEqual(new Set(answers.map((a) => a.value?.status ?? a.reason.name)), new Set([502]));
    } finally {
      await app.close();
    }
  });
});

describe('Redis refuses the password', () => {
  let server;
  before(async () => {
    server = await startServer([], { password: 'the-right-one' });
  });

  test('a wrong password: every page says Redis refused the login, within 5 s', async () => {
    const { app, url } = await startConsole(server.port, ['--url', `redis://:wrong@127.0.0.1:${server.port}`]);
    try {
      const message = /^Redis at redis:\/\/127\.0\.0\.1:\d+ refused the console's login: WRONGPASS /;
      await everyPageFails(url, 502, message);
      await overviewShows(url, 502, message);
    } finally {
      await app.close();
    }
  });

  test('no password: the same, with the server\'s NOAUTH', async () => {
    const { app, url } = await startConsole(server.port);
    try {
      await everyPageFails(url, 502, /refused the console's login: NOAUTH /);
    } finally {
      await app.close();
    }
  });

  test('the right password: the overview answers', async () => {
    const { app, url } = await startConsole(server.port, ['--url', `redis://:the-right-one@127.0.0.1:${server.port}`]);
    try {
      assert.equal((await httpRequest(`${url}/`)).status, 200);
    } finally {
      await app.close();
    }
  });
});

describe('TLS fails', () => {
  test('a listener that never answers the TLS handshake: every page says so within 5 s', async () => {
    const { port } = await startSilentListener();
    const { app, url } = await startConsole(port, ['--url', `rediss://127.0.0.1:${port}`]);
    try {
      const message = new RegExp(`^Redis at rediss://127\\.0\\.0\\.1:${port} did not .*TLS handshake`);
      await everyPageFails(url, 504, message);
      await overviewShows(url, 504, message);
    } finally {
      await app.close();
    }
  });

  test('a server whose certificate the console does not trust: every page says so within 5 s; with --tls-ca it answers', async () => {
    const certificate = selfSignedCertificate();
    const server = await startServer([], { tls: certificate });
    const untrusted = await startConsole(server.port, ['--url', `rediss://127.0.0.1:${server.port}`]);
    try {
      const message = /^The TLS handshake with Redis at rediss:\/\/127\.0\.0\.1:\d+ failed: self-signed certificate/;
      await everyPageFails(untrusted.url, 502, message);
      await overviewShows(untrusted.url, 502, message);
    } finally {
      await untrusted.app.close();
    }
    const trusted = await startConsole(server.port, ['--url', `rediss://127.0.0.1:${server.port}`, '--tls-ca', certificate.cert]);
    try {
      assert.equal((await httpRequest(`${trusted.url}/`)).status, 200);
    } finally {
      await trusted.app.close();
    }
  });
});
