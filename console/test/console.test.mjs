// The console in headless Chromium against real servers with zkit: every
// page renders, every count is what the server says, writes happen only
// when started --writable and confirmed (a dead task retried from the page
// is back in its queue), on a server and on a cluster.
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import { zkit } from 'zkit';

import { httpRequest, startCluster, startConsole, startLibraryServer, startServer, useBrowser } from './helpers.mjs';

const SHOTS = process.env.ZKIT_CONSOLE_SCREENSHOTS;
const BINARY_TASK = Buffer.from([0xff, 0x00, 0x41]); // no UTF-8, a NUL: shown as \xff\x00A
const session = useBrowser();

async function serverNow(r) {
  const [seconds, micros] = await r.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** A queue with due, scheduled, leased, expired, dead and redelivered tasks; a board of 60; a merge in steps; a rate log; a recent list. */
async function seed(r) {
  const now = await serverNow(r);
  await r.zadd('{jobs}', now - 600_000, 'mail:1', now - 1000, 'mail:2', now - 500, 'report:7', now + 3_600_000, 'digest:1', now + 7_200_000, 'digest:2');
  await r.zadd('{jobs}:inflight', now - 5000, 'resize:3', now + 60_000, 'mail:0');
  await r.zadd('{jobs}:deliveries', 1, 'mail:0', 2, 'resize:3', 3, 'report:7');
  await r.zadd('{jobs}:dead', now - 60_000, 'poison:1', now - 30_000, 'poison:2', now - 20_000, 'TASKS');
  await r.zadd('{jobs}:dead', now - 10, BINARY_TASK);
  // Through the client: the module's commands, or the library's functions.
  const z = zkit(r);
  for (let i = 0; i < 60; i++) await z.rankGift('gifts:room:42', `viewer:${i}`, (i * 37) % 500);
  await z.rankMerge('gifts:week', ['gifts:room:42'], { step: { count: 10, staging: 'gifts:week:staging', cursor: '0' } });
  for (let i = 0; i < 3; i++) await z.rateHit('user:1000:comment', 60000, 2);
  await z.recentAdd('MemberRecentGoods:66', ['3001', '3002', '3004']);
  return now;
}

/**
 * Clicks a link or a form's button and waits for the page it opens: a read
 * right after a bare click can see the page before it, or none (a loaded
 * machine's navigation is slow).
 */
async function follow(page, target) {
  const element = typeof target === 'string' ? page.locator(target) : target;
  await Promise.all([page.waitForNavigation(), element.click()]);
}

/** The text of every `[data-field=name]` in `scope`. */
async function fieldText(scope, name) {
  return (await scope.locator(`[data-field="${name}"]`).first().textContent()).trim();
}

async function open(page, url) {
  const response = await page.goto(url);
  assert.equal(response.status(), 200, `${url}: ${response.status()}`);
  // Rendered by the browser: a title and a heading, no error box.
  assert.match(await page.title(), /zkit console$/);
  assert.ok((await page.locator('h1').textContent()).length > 0);
  assert.equal(await page.locator('.error').count(), 0, `${url} shows an error`);
  return page;
}

/** POSTs a form from the console's own origin, with a Host header of our choosing; resolves to the status. */
async function post(url, pathname, body, host) {
  const target = new URL(url);
  const headers = { 'content-type': 'application/x-www-form-urlencoded', origin: `http://${host ?? target.host}`, ...(host ? { host } : {}) };
  return (await httpRequest(`${url}${pathname}`, { method: 'POST', headers, body })).status;
}

describe('on a server', () => {
  let server;
  let z;
  before(async () => {
    server = await startServer();
    await seed(server.client);
    z = zkit(server.client);
  });

  test('read-only: every page renders, counts match the server, no write is offered', async () => {
    const { app, url } = await startConsole(server.port);
    const page = await session.browser.newPage({ viewport: { width: 1000, height: 640 } });
    try {
      // Overview: what was found, and INFO zkit.
      await open(page, `${url}/`);
      assert.equal(await fieldText(page, 'count-queues'), '1');
      assert.equal(await fieldText(page, 'count-boards'), '1');
      assert.equal(await fieldText(page, 'count-merges'), '1');
      const info = await server.client.info('zkit');
      assert.equal(await fieldText(page, 'zkit'), `module ${info.match(/zkit_version:(\S+)/)[1]}`);
      const refused = info.match(/zkit_rate_hits_refused:(\d+)/)[1];
      assert.equal(await fieldText(page, 'zkit_rate_hits_refused'), refused);
      assert.equal(refused, '1');
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'console-overview.png') });

      // Queues: each count is DELAY.STATS's.
      await open(page, `${url}/queues`);
      const sets = { inflight: '{jobs}:inflight', dead: '{jobs}:dead', deliveries: '{jobs}:deliveries' };
      const stats = await z.delayStats('{jobs}', sets);
      const row = page.locator('tr[data-queue="{jobs}"]');
      for (const [field, value] of [['tasks', stats.tasks], ['due', stats.due], ['inflight', stats.inflight], ['expired', stats.expired], ['dead', stats.dead], ['redelivered', stats.redelivered]]) {
        assert.equal(await fieldText(row, field), String(value), field);
      }
      assert.deepEqual([stats.tasks, stats.due, stats.inflight, stats.expired, stats.dead, stats.redelivered], [5, 3, 2, 1, 4, 2]);
      assert.match(await fieldText(row, 'lag'), /^10 min/);

      // A queue's tabs: every task of each set, in score order, with its deliveries.
      await follow(page, 'tr[data-queue="{jobs}"] a');
      const ready = await page.locator('#tasks tr[data-task]').evaluateAll((rows) => rows.map((r) => r.dataset.task));
      assert.deepEqual(ready, await server.client.zrange('{jobs}', 0, -1));
      assert.equal(await fieldText(page.locator('tr[data-task="report:7"]'), 'deliveries'), '3');
      await follow(page, '[data-tab="inflight"]');
      assert.deepEqual(await page.locator('#tasks tr[data-task]').evaluateAll((rows) => rows.map((r) => r.dataset.task)), ['resize:3', 'mail:0']);
      await follow(page, '[data-tab="dead"]');
      const dead = await page.locator('#tasks tr[data-task]').evaluateAll((rows) => rows.map((r) => r.dataset.task));
      assert.deepEqual(dead, ['poison:1', 'poison:2', 'TASKS', '\\xff\\x00A']);
      assert.equal(await page.locator('form[action="/confirm"], button[data-action]').count(), 0, 'a read-only console offers writes');

      // Boards: RANK.STATS, pages of RANK.TOP, a member and its neighbours.
      await open(page, `${url}/boards`);
      const board = await z.rankStats('gifts:room:42');
      assert.equal(await fieldText(page, 'members'), '60');
      assert.equal(await fieldText(page, 'top-total'), String(board.topTotal));
      assert.equal(await fieldText(page, 'p50-total'), String(board.p50Total));
      await follow(page, 'tr[data-board="gifts:room:42"] a');
      const top = await z.rankTop('gifts:room:42', 60);
      const shown = async () => page.locator('#top tr[data-member]').evaluateAll((rows) => rows.map((r) => r.dataset.member));
      assert.deepEqual(await shown(), top.slice(0, 50).map((e) => e.member));
      await follow(page, '#next');
      assert.deepEqual(await shown(), top.slice(50).map((e) => e.member));
      await page.fill('#member', 'viewer:7');
      await follow(page, '#find');
      const entry = await z.rankGet('gifts:room:42', 'viewer:7');
      assert.equal(await fieldText(page, 'member-rank'), String(entry.rank));
      assert.equal(await fieldText(page, 'member-total'), String(entry.total));
      assert.equal(await page.locator('#around tr.here-row').getAttribute('data-member'), 'viewer:7');
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'console-board.png') });

      // Merges in progress, rate logs, recent lists.
      await open(page, `${url}/merges`);
      assert.equal(await fieldText(page.locator('tr[data-staging="gifts:week:staging"]'), 'members'), String(await server.client.zcard('gifts:week:staging')));
      // The default windows (the exporter's): 5 s and an hour. The hits of
      // the last 5 s can only fall out of the window while the page loads,
      // so the page's count lies between RATE.STATS before and after it.
      const before = await z.rateStats('user:1000:comment', [5000, 3600000]);
      await open(page, `${url}/rates`);
      const log = await z.rateStats('user:1000:comment', [5000, 3600000]);
      const logRow = page.locator('tr[data-log="user:1000:comment"]');
      assert.equal(await fieldText(logRow, 'entries'), String(log.entries));
      const recent = Number(await fieldText(logRow, 'window-5000'));
      assert.ok(log.windows[0].entries <= recent && recent <= before.windows[0].entries,
        `${recent} hits in the last 5 s, RATE.STATS ${before.windows[0].entries} before and ${log.windows[0].entries} after`);
      assert.equal(await fieldText(logRow, 'window-3600000'), '2');
      await open(page, `${url}/recent`);
      assert.equal(await fieldText(page, 'size'), '3');
      await follow(page, page.locator('a', { hasText: 'MemberRecentGoods:66' }));
      assert.deepEqual(await page.locator('#items tr[data-item]').evaluateAll((rows) => rows.map((r) => r.dataset.item)), ['3004', '3002', '3001']);

      // No page offers a write, and the write endpoints refuse.
      for (const p of ['/', '/queues', '/boards', '/merges', '/rates', '/recent']) {
        await open(page, `${url}${p}`);
        assert.equal(await page.locator('form[method="post"]').count(), 0, `${p} has a form that writes`);
      }
      assert.equal(await post(url, '/confirm', 'action=retry'), 403);
      assert.equal(await post(url, '/do', 'action=retry'), 403);
      assert.equal(await server.client.zcard('{jobs}:dead'), 4, 'the dead tasks are untouched');
    } finally {
      await page.close();
      await app.close();
    }
  });

  test('a board with a data hash shows each member\'s data beside its rank', async () => {
    await z.rankGift('gifts:data:1', 'ann', 30, { data: { dataKey: 'profiles:data:1', data: 'Ann <fr>' } });
    await z.rankGift('gifts:data:1', 'bob', 10);
    const { app, url } = await startConsole(server.port, ['--board', 'gifts:*,data=profiles:*']);
    const page = await session.browser.newPage({ viewport: { width: 1000, height: 640 } });
    try {
      await open(page, `${url}/board?k=${Buffer.from('gifts:data:1').toString('base64url')}`);
      const rows = await page.locator('#top tr[data-member]').evaluateAll((trs) =>
        trs.map((tr) => [tr.dataset.member, tr.querySelector('[data-field="data"]').textContent]));
      assert.deepEqual(rows, [['ann', 'Ann <fr>'], ['bob', '—']]);
      await page.fill('#member', 'ann');
      await follow(page, '#find');
      assert.equal(await fieldText(page, 'member-data'), 'Ann <fr>');
      assert.equal(await page.locator('#around [data-field="data"]').count(), 2);
      // Another board the spec names reads its own (missing) hash: none.
      await open(page, `${url}/board?k=${Buffer.from('gifts:room:42').toString('base64url')}`);
      const cells = await page.locator('#top [data-field="data"]').allTextContents();
      assert.deepEqual(cells, Array(50).fill('—'));
    } finally {
      await page.close();
      await app.close();
      await server.client.del('gifts:data:1', 'profiles:data:1');
    }
  });

  test('an ascending board lists its lowest total first, and finds a member by its own rank', async () => {
    await z.rankSet('laps:asc:1', 'ann', 61250, { asc: true });
    await z.rankSet('laps:asc:1', 'bob', 59900, { asc: true });
    await z.rankSet('laps:asc:1', 'cid', 70000, { asc: true });
    const { app, url } = await startConsole(server.port, ['--board', 'laps:*,asc']);
    const page = await session.browser.newPage({ viewport: { width: 1000, height: 640 } });
    try {
      await open(page, `${url}/board?k=${Buffer.from('laps:asc:1').toString('base64url')}`);
      const rows = await page.locator('#top tr[data-member]').evaluateAll((trs) =>
        trs.map((tr) => [tr.querySelector('[data-field="rank"]').textContent, tr.dataset.member]));
      assert.deepEqual(rows, [['1', 'bob'], ['2', 'ann'], ['3', 'cid']]);
      assert.equal(await fieldText(page, 'top-total'), '59900');
      assert.equal(await page.locator('#ascending').count(), 1);
      await page.fill('#member', 'cid');
      await follow(page, '#find');
      assert.equal(await fieldText(page, 'member-rank'), '3');
    } finally {
      await page.close();
      await app.close();
      await server.client.del('laps:asc:1');
    }
  });

  test('a board ranked by several columns shows each column under its name, and a member\'s values', async () => {
    await z.rankColumns('match:cols:1', [{ name: 'kills', best: 100, worst: 0 }, { name: 'time', best: 0, worst: 3600 }]);
    await z.rankSet('match:board:1', 'ann', 12, { columns: 'match:cols:1', then: [1800] });
    await z.rankSet('match:board:1', 'bob', 12, { columns: 'match:cols:1', then: [1500] });
    await z.rankSet('match:board:1', 'cid', 13, { columns: 'match:cols:1', then: [3000] });
    const { app, url } = await startConsole(server.port, ['--board', 'match:board:*,columns=match:cols:*']);
    const page = await session.browser.newPage({ viewport: { width: 1000, height: 640 } });
    try {
      await open(page, `${url}/board?k=${Buffer.from('match:board:1').toString('base64url')}`);
      const heads = await page.locator('#top tr th').allTextContents();
      assert.deepEqual(heads, ['rank', 'member', 'kills', 'time']);
      const rows = await page.locator('#top tr[data-member]').evaluateAll((trs) =>
        trs.map((tr) => [tr.dataset.member, ...[1, 2].map((i) => tr.querySelector(`[data-field="column-${i}"]`).textContent)]));
      assert.deepEqual(rows, [['cid', '13', '3000'], ['bob', '12', '1500'], ['ann', '12', '1800']]);
      assert.equal(await page.locator('#columns').count(), 1);
      await page.fill('#member', 'ann');
      await follow(page, '#find');
      assert.equal(await fieldText(page, 'member-rank'), '3');
      assert.equal(await fieldText(page, 'member-column-2'), '1800');
    } finally {
      await page.close();
      await app.close();
      await server.client.del('match:board:1', 'match:cols:1');
    }
  });

  test('writable: a dead task retried from the page is back in its queue; every write is confirmed first', async () => {
    // The console logs in as an ACL user whose password must show nowhere.
    const secret = 'console-secret-7f3a';
    await server.client.acl('SETUSER', 'console', 'on', `>${secret}`, '~*', '+@all');
    process.env.ZKIT_CONSOLE_PASSWORD = secret;
    let started;
    try {
      started = await startConsole(server.port, ['--writable', '--url', `redis://console@127.0.0.1:${server.port}`]);
    } finally {
      delete process.env.ZKIT_CONSOLE_PASSWORD;
    }
    const { app, url, logs } = started;
    const page = await session.browser.newPage({ viewport: { width: 1000, height: 640 } });
    const html = [];
    page.on('response', async (response) => {
      if ((response.headers()['content-type'] ?? '').startsWith('text/html')) html.push(await response.text().catch(() => ''));
    });
    try {
      const clients = await server.client.client('LIST');
      assert.match(clients, /name=zkit-console .*user=console/, 'the console logs in as its ACL user');
      const sets = { inflight: '{jobs}:inflight', dead: '{jobs}:dead', deliveries: '{jobs}:deliveries' };
      const before = await z.delayStats('{jobs}', sets);
      await open(page, `${url}/queue?k=${Buffer.from('{jobs}').toString('base64url')}&tab=dead`);

      // Retry: a confirmation page says what runs; Cancel changes nothing.
      await page.locator('tr[data-task="poison:2"] button[data-action="retry"]').click();
      assert.match(await page.locator('#what').textContent(), /^DELAY\.RETRY \{jobs\}:dead \{jobs\} DATA \{jobs\}:data TASKS poison:2: /);
      await page.click('#cancel');
      assert.notEqual(await server.client.zscore('{jobs}:dead', 'poison:2'), null);

      // Retry, confirmed: the task is due now in the queue, gone from the dead set.
      await page.locator('tr[data-task="poison:1"] button[data-action="retry"]').click();
      await page.click('#confirm');
      assert.equal((await page.locator('#flash').textContent()).trim(), 'poison:1 is due now in {jobs}.');
      assert.equal(await server.client.zscore('{jobs}:dead', 'poison:1'), null);
      const due = Number(await server.client.zscore('{jobs}', 'poison:1'));
      const now = await serverNow(server.client);
      assert.ok(due <= now && due > now - 10_000, `due ${due}, now ${now}`);
      const after = await z.delayStats('{jobs}', sets);
      assert.deepEqual([after.dead, after.tasks, after.due], [before.dead - 1, before.tasks + 1, before.due + 1]);
      assert.equal(await fieldText(page, 'dead'), String(after.dead), 'the page shows the new count');

      // The task whose name is no UTF-8 is retried byte for byte.
      await page.locator('#tasks tr', { hasText: '\\xff\\x00A' }).locator('button[data-action="retry"]').click();
      await page.click('#confirm');
      assert.notEqual(await server.client.zscoreBuffer('{jobs}', BINARY_TASK), null);

      // Retry all: every dead task is due again.
      await page.locator('button[data-action="retry-all"]').click();
      await page.click('#confirm');
      assert.match(await page.locator('#flash').textContent(), /^2 dead tasks are due now in \{jobs\}\.$/);
      assert.equal(await server.client.zcard('{jobs}:dead'), 0);
      assert.notEqual(await server.client.zscore('{jobs}', 'TASKS'), null);

      // Promote a scheduled task to now.
      await page.locator('[data-tab="ready"]').click();
      await page.locator('tr[data-task="digest:2"] button[data-action="promote"]').click();
      await page.click('#confirm');
      assert.ok(Number(await server.client.zscore('{jobs}', 'digest:2')) <= (await serverNow(server.client)));

      // Delete a task in flight, with its delivery count.
      await page.locator('[data-tab="inflight"]').click();
      await page.locator('tr[data-task="resize:3"] button[data-action="delete-inflight"]').click();
      assert.match(await page.locator('#what').textContent(), /^ZREM \{jobs\}:inflight resize:3 and ZREM \{jobs\}:deliveries/);
      await page.click('#confirm');
      assert.equal(await server.client.zscore('{jobs}:inflight', 'resize:3'), null);
      assert.equal(await server.client.zscore('{jobs}:deliveries', 'resize:3'), null);

      // A write needs this console's token; a foreign Host is refused.
      assert.equal(await post(url, '/do', `action=retry&queue=${Buffer.from('{jobs}').toString('base64url')}&task=&token=forged`), 403);
      assert.equal(await post(url, '/confirm', 'action=retry', 'evil.example'), 421);

      assert.ok(logs.some((line) => line.includes('retry on {jobs} task poison:1')), logs.join('\n'));
      for (const text of [...html, logs.join('\n')]) assert.ok(!text.includes(secret), 'the password shows in a page or the log');
    } finally {
      await page.close();
      await app.close();
    }
  });
});

describe('on a server with only the Functions library', () => {
  test('the overview says zkit runs as the library, with its version; queues and boards read through it', async () => {
    const server = await startLibraryServer();
    const z = zkit(server.client);
    await seed(server.client);
    const { app, url } = await startConsole(server.port);
    const page = await session.browser.newPage();
    try {
      assert.equal(await z.engine(), 'functions');
      const version = await server.client.call('FCALL_RO', 'zkit_version', 0);
      await open(page, `${url}/`);
      assert.equal(await fieldText(page, 'zkit'), `Functions library ${version}`);
      assert.match(await page.locator('#counters').textContent(), /The Functions library keeps no counters/);
      assert.equal(await fieldText(page, 'count-queues'), '1');
      assert.equal(await fieldText(page, 'count-boards'), '1');

      await open(page, `${url}/queues`);
      const stats = await z.delayStats('{jobs}', { inflight: '{jobs}:inflight', dead: '{jobs}:dead', deliveries: '{jobs}:deliveries' });
      const row = page.locator('tr[data-queue="{jobs}"]');
      assert.equal(await fieldText(row, 'tasks'), String(stats.tasks));
      assert.equal(await fieldText(row, 'dead'), String(stats.dead));
      await open(page, `${url}/board?k=${Buffer.from('gifts:room:42').toString('base64url')}`);
      const top = await z.rankTop('gifts:room:42', 50);
      assert.deepEqual(await page.locator('#top tr[data-member]').evaluateAll((rows) => rows.map((r) => r.dataset.member)), top.map((e) => e.member));
    } finally {
      await page.close();
      await app.close();
    }
  });
});

describe('on a cluster', () => {
  test('queues of three slots, counts from the node of each, a retry routed to it', async () => {
    const { nodes, client } = await startCluster();
    const { app, url } = await startConsole(nodes[1].port, ['--cluster', '--writable', '--board', '{room:*}:board']);
    const page = await session.browser.newPage();
    try {
      const tags = ['{jobs}', '{mail}', '{image}'];
      const now = await serverNow(nodes[0].client);
      for (const [i, tag] of tags.entries()) {
        const due = Array.from({ length: i + 1 }, (_, j) => [now - 1000 * (j + 1), `${tag}:task:${j}`]).flat();
        await client.zadd(tag, ...due);
        await client.zadd(`${tag}:dead`, now, `${tag}:poison`);
      }
      await client.call('RANK.GIFT', '{room:7}:board', 'alice', 10);
      const z = zkit(client);
      const owners = new Set();
      for (const tag of tags) owners.add(client.slots[(await client.cluster('KEYSLOT', tag))][0]);
      assert.ok(owners.size > 1, 'the tags landed on one node');

      await open(page, `${url}/queues`);
      for (const tag of tags) {
        const stats = await z.delayStats(tag, { dead: `${tag}:dead`, inflight: `${tag}:inflight` });
        const row = page.locator(`tr[data-queue="${tag}"]`);
        assert.equal(await fieldText(row, 'tasks'), String(stats.tasks), tag);
        assert.equal(await fieldText(row, 'due'), String(stats.due), tag);
        assert.equal(await fieldText(row, 'dead'), '1', tag);
      }
      await open(page, `${url}/boards`);
      assert.equal(await fieldText(page.locator('tr[data-board="{room:7}:board"]'), 'members'), '1');
      await open(page, `${url}/`);
      assert.equal(await page.getByRole('heading', { name: 'Masters', exact: true }).count(), 1);
      assert.equal(await fieldText(page, 'count-queues'), '3');

      await open(page, `${url}/queue?k=${Buffer.from('{image}').toString('base64url')}&tab=dead`);
      await page.locator('button[data-action="retry"]').click();
      await page.click('#confirm');
      assert.equal(await client.zcard('{image}:dead'), 0);
      assert.notEqual(await client.zscore('{image}', '{image}:poison'), null);
    } finally {
      await page.close();
      await app.close();
      client.disconnect();
    }
  });
});
