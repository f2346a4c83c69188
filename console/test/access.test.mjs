// What the console lets in and what it shows: requests addressed to a name
// it was not told to answer to are refused on every bind address (a page
// elsewhere cannot read it through DNS rebinding), writes refuse another
// origin, pages read only the keys their patterns allow, the success banner
// shows only the console's own write, and bad query input is a 400 page.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { before, describe, test } from 'node:test';

import { parseOptions } from '../src/options.mjs';
import { id as k } from '../src/pages.mjs';

import { REBOUND_NAME, httpRequest, startConsole, startServer, useBrowser } from './helpers.mjs';

const session = useBrowser();
let server;

before(async () => {
  server = await startServer();
  const r = server.client;
  const [seconds] = await r.time();
  const now = Number(seconds) * 1000;
  await r.zadd('{jobs}', now - 1000, 'mail:1');
  await r.zadd('{jobs}:dead', now - 60_000, 'poison:1', now - 30_000, 'poison:2');
  await r.call('RANK.GIFT', 'gifts:room:1', 'alice', 10);
  await r.call('RANK.GIFT', 'gifts:room:1', 'bob', 5);
  await r.call('RANK.MERGE', 'gifts:week', 1, 'gifts:room:1', 'STEP', 1, 'gifts:week:staging', 0);
  await r.call('RECENT.ADD', 'MemberRecentGoods:1', 'ITEMS', '3001');
  // Sorted sets no --board or --recent pattern names.
  await r.call('RANK.GIFT', 'payroll:salaries', 'carol', 250000);
  await r.zadd('sessions:active', now, 'token-of-dave');
});

/** The form token a writable console's queue page carries. */
async function tokenOf(url) {
  const { body } = await httpRequest(`${url}/queue?k=${k('{jobs}')}&tab=dead`);
  const token = /name="token" value="([0-9a-f]+)"/.exec(body);
  assert.ok(token, 'the queue page has no form token');
  return token[1];
}

describe('Host and Origin', () => {
  test('bound to every address (the image\'s --host 0.0.0.0): a page on a rebound name gets no page and no token', async () => {
    const { app, url } = await startConsole(server.port, ['--host', '0.0.0.0', '--writable']);
    const port = new URL(url).port;
    const page = await session.browser.newPage();
    try {
      // The attacker's name now resolves to the console's address: the browser sends Host: rebound.example.
      const response = await page.goto(`http://${REBOUND_NAME}:${port}/queue?k=${k('{jobs}')}&tab=dead`);
      assert.equal(response.status(), 421);
      assert.equal(await page.locator('input[name="token"]').count(), 0, 'the rebound page shows the form token');
      assert.match(await page.locator('.error').textContent(), /answers to localhost, 127\.0\.0\.1 and \[::1\] only: --allow-host/);
      for (const host of ['evil.example', `evil.example:${port}`, `0.0.0.0:${port}`]) {
        assert.equal((await httpRequest(`${url}/`, { headers: { host } })).status, 421, host);
        assert.equal((await httpRequest(`${url}/confirm`, { method: 'POST', headers: { host, origin: `http://${host}` }, body: 'action=retry' })).status, 421, host);
      }
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
        assert.equal((await httpRequest(`${url}/`, { headers: { host } })).status, 200, host);
      }
    } finally {
      await page.close();
      await app.close();
    }
  });

  test('--allow-host adds the name an operator serves it as', async () => {
    const { app, url } = await startConsole(server.port, ['--allow-host', REBOUND_NAME, '--allow-host', 'Console.Example']);
    const port = new URL(url).port;
    const page = await session.browser.newPage();
    try {
      const response = await page.goto(`http://${REBOUND_NAME}:${port}/queues`);
      assert.equal(response.status(), 200);
      assert.equal(await page.locator('tr[data-queue="{jobs}"]').count(), 1);
      for (const host of ['console.example', `console.example:${port}`, `127.0.0.1:${port}`]) {
        assert.equal((await httpRequest(`${url}/`, { headers: { host } })).status, 200, host);
      }
      assert.equal((await httpRequest(`${url}/`, { headers: { host: 'other.example' } })).status, 421);
      for (const name of ['console.example:7070', 'console.example/x', 'user@console.example']) {
        assert.throws(() => parseOptions(['--allow-host', name]), /a name alone, without a port or path/, name);
      }
    } finally {
      await page.close();
      await app.close();
    }
  });

  test('a page on another origin cannot write, even holding the token', async () => {
    const { app, url } = await startConsole(server.port, ['--writable']);
    const token = await tokenOf(url);
    // A form on another origin (another port of this machine), posting to the console.
    const fields = { action: 'delete-dead', queue: k('{jobs}'), task: k('poison:1'), back: '/queues', token };
    const hidden = Object.entries(fields).map(([name, value]) => `<input type="hidden" name="${name}" value="${value}">`).join('');
    const attacker = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(`<!doctype html><title>prizes</title><form method="post" action="${url}/do">${hidden}<button id="go">claim</button></form>`);
    });
    await new Promise((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    const page = await session.browser.newPage();
    try {
      await page.goto(`http://127.0.0.1:${attacker.address().port}/`);
      const [response] = await Promise.all([page.waitForNavigation(), page.click('#go')]);
      assert.equal(response.status(), 403);
      assert.match(await page.locator('.error').textContent(), /another origin/);
      assert.notEqual(await server.client.zscore('{jobs}:dead', 'poison:1'), null, 'the dead task was deleted');

      // Without an Origin (no browser sends a form so), and with one that is not the console's.
      const body = new URLSearchParams(fields).toString();
      const headers = { 'content-type': 'application/x-www-form-urlencoded' };
      assert.equal((await httpRequest(`${url}/do`, { method: 'POST', headers, body })).status, 403);
      assert.equal((await httpRequest(`${url}/do`, { method: 'POST', headers: { ...headers, origin: 'null' }, body })).status, 403);
      assert.equal((await httpRequest(`${url}/do`, { method: 'POST', headers: { ...headers, origin: 'http://localhost:1' }, body })).status, 403);
      assert.notEqual(await server.client.zscore('{jobs}:dead', 'poison:1'), null, 'the dead task was deleted');
      // The console's own origin writes.
      assert.equal((await httpRequest(`${url}/do`, { method: 'POST', headers: { ...headers, origin: url }, body })).status, 303);
      assert.equal(await server.client.zscore('{jobs}:dead', 'poison:1'), null);
    } finally {
      await page.close();
      await app.close();
      attacker.close();
    }
  });
});

describe('what pages show', () => {
  test('/board and /recent read only keys their patterns allow', async () => {
    const { app, url } = await startConsole(server.port);
    try {
      for (const key of ['payroll:salaries', 'sessions:active', 'gifts:week:staging']) {
        for (const page of [`/board?k=${k(key)}`, `/recent?k=${k(key)}`, `/queue?k=${k(key)}`]) {
          const { status, body } = await httpRequest(`${url}${page}`);
          assert.equal(status, 404, `${key} on ${page}: ${status}`);
          assert.ok(!body.includes('carol') && !body.includes('token-of-dave'), `${page} shows the key's members`);
        }
      }
      const board = await httpRequest(`${url}/board?k=${k('gifts:room:1')}`);
      assert.equal(board.status, 200);
      assert.match(board.body, /data-member="alice"/);
      const recent = await httpRequest(`${url}/recent?k=${k('MemberRecentGoods:1')}`);
      assert.equal(recent.status, 200);
      assert.match(recent.body, /data-item="3001"/);
    } finally {
      await app.close();
    }
  });

  test('the success banner shows once, after the console\'s own write, and never text from the address', async () => {
    const { app, url } = await startConsole(server.port, ['--writable']);
    const page = await session.browser.newPage();
    try {
      for (const done of ['poison:2 is due now in {jobs}.', 'Your session expired: sign in at evil.example']) {
        await page.goto(`${url}/queues?${new URLSearchParams({ done })}`);
        assert.equal(await page.locator('#flash').count(), 0, `a banner from ?done=${done}`);
      }
      await page.goto(`${url}/queues?done=${'0'.repeat(32)}`);
      assert.equal(await page.locator('#flash').count(), 0, 'a banner for a made-up write');

      await page.goto(`${url}/queue?k=${k('{jobs}')}&tab=dead`);
      await page.locator('tr[data-task="poison:2"] button[data-action="retry"]').click();
      await page.click('#confirm');
      assert.equal((await page.locator('#flash').textContent()).trim(), 'poison:2 is due now in {jobs}.');
      const after = page.url();
      await page.reload();
      assert.equal(await page.locator('#flash').count(), 0, 'the banner shows again on reload');
      assert.equal(new URL(after).pathname, '/queue');
    } finally {
      await page.close();
      await app.close();
    }
  });

  test('a bad offset or tab is a 400 page, an offset of 2^53 and past included', async () => {
    const { app, url } = await startConsole(server.port);
    try {
      for (const offset of ['9007199254740993', '9007199254740992', '18446744073709551616', '1e3', '-1', '1.5', 'x', '']) {
        for (const page of [`/board?k=${k('gifts:room:1')}`, `/queue?k=${k('{jobs}')}`]) {
          const { status, body } = await httpRequest(`${url}${page}&offset=${offset}`);
          assert.equal(status, 400, `${page}&offset=${offset}: ${status}`);
          assert.match(body, /<p class="error">offset: a whole number from 0 to \d+<\/p>/);
        }
      }
      for (const tab of ['constructor', 'deliveries', 'x']) {
        const { status, body } = await httpRequest(`${url}/queue?k=${k('{jobs}')}&tab=${tab}`);
        assert.equal(status, 400, `tab=${tab}: ${status}`);
        assert.match(body, /<p class="error">tab: ready, inflight or dead<\/p>/);
      }
      assert.equal((await httpRequest(`${url}/board?k=${k('gifts:room:1')}&offset=1`)).status, 200);
      const far = await httpRequest(`${url}/queue?k=${k('{jobs}')}&offset=1000000`);
      assert.equal(far.status, 200);
      assert.match(far.body, /No tasks here/);
    } finally {
      await app.close();
    }
  });
});
