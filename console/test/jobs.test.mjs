// The console's job views in headless Chromium, on a server with the module
// and on one with only the Functions library: each task's payload (escaped,
// cut, its size), attempts, last failure and holder from the queue's DATA
// hash, a task's page from DELAY.JOB, a paused queue shown as paused, and on
// a writable console pause, resume, and a retry that keeps the payload and
// the reason.
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import { zkit } from 'zkit';

import { startConsole, startLibraryServer, startServer, useBrowser } from './helpers.mjs';

const SHOTS = process.env.ZKIT_CONSOLE_SCREENSHOTS;
const session = useBrowser();
const Q = '{work}';
const SETS = { inflight: `${Q}:inflight`, dead: `${Q}:dead`, deliveries: `${Q}:deliveries`, data: `${Q}:data` };
const MARKUP = 'to=<b>alice</b>&body="hi"';
const LONG = 'x'.repeat(300);
const BINARY = Buffer.from([0xff, 0x00, 0x41]); // no UTF-8, a NUL: shown as \xff\x00A
const REASON = 'boom: <disk full>';
const WORKER = 'worker-<7>';
const k = Buffer.from(Q).toString('base64url');

async function fieldText(scope, name) {
  return (await scope.locator(`[data-field="${name}"]`).first().textContent()).trim();
}

async function open(page, url) {
  const response = await page.goto(url);
  assert.equal(response.status(), 200, `${url}: ${response.status()}`);
  assert.equal(await page.locator('.error').count(), 0, `${url} shows an error`);
}

/** Jobs as workers leave them: three scheduled with payloads, one dead after a failure with a reason, one held by a named worker. */
async function seedJobs(z) {
  const poll = { count: 1, lease: { key: SETS.inflight, ms: 60_000 }, deadLetter: { dead: SETS.dead, deliveries: SETS.deliveries, maxDeliveries: 1 }, data: SETS.data };
  await z.delayAdd(Q, { data: SETS.data, jobs: [{ dueMs: 0, task: 'crash:1', payload: 'resize img-9.png' }] });
  const later = Date.now() + 3_600_000;
  await z.delayAdd(Q, {
    data: SETS.data,
    jobs: [
      { dueMs: later, task: 'mail:1', payload: MARKUP },
      { dueMs: later + 1, task: 'long:1', payload: LONG },
      { dueMs: later + 2, task: 'binary:1', payload: BINARY },
    ],
  });
  assert.deepEqual((await z.delayPoll(Q, { ...poll, worker: 'worker-1' })).map((t) => t.task), ['crash:1']);
  assert.equal(await z.delayNack(SETS.inflight, Q, 'crash:1', 0, { data: SETS.data, reason: REASON }), true);
  // Delivered once already: this poll buries it.
  assert.deepEqual(await z.delayPoll(Q, { ...poll, worker: 'worker-1' }), []);
  await z.delayAdd(Q, { data: SETS.data, jobs: [{ dueMs: 0, task: 'held:1', payload: 'report 7' }] });
  assert.deepEqual((await z.delayPoll(Q, { ...poll, worker: WORKER })).map((t) => t.task), ['held:1']);
}

const tasksShown = (page) => page.locator('#tasks tr[data-task]').evaluateAll((rows) => rows.map((r) => r.dataset.task));

async function readOnlyViews(server) {
  const z = zkit(server.client);
  const { app, url } = await startConsole(server.port);
  const page = await session.browser.newPage({ viewport: { width: 1200, height: 700 } });
  try {
    await open(page, `${url}/queues`);
    assert.equal(await fieldText(page.locator(`tr[data-queue="${Q}"]`), 'paused'), 'no');
    assert.equal(await fieldText(page.locator(`tr[data-queue="${Q}"]`), 'capped-groups'), '0');

    // Scheduled jobs: each payload escaped (the markup is text), cut to 80 characters, its size in bytes.
    await open(page, `${url}/queue?k=${k}`);
    assert.deepEqual(await tasksShown(page), ['mail:1', 'long:1', 'binary:1']);
    const mail = page.locator('tr[data-task="mail:1"]');
    assert.equal(await fieldText(mail, 'payload'), MARKUP);
    assert.equal(await mail.locator('b').count(), 0, 'the payload rendered as markup');
    assert.equal(await fieldText(mail, 'payload-bytes'), `${Buffer.byteLength(MARKUP)} B`);
    const long = page.locator('tr[data-task="long:1"]');
    assert.equal(await fieldText(long, 'payload'), `${'x'.repeat(80)}…`);
    assert.equal(await fieldText(long, 'payload-bytes'), '300 B');
    const binary = page.locator('tr[data-task="binary:1"]');
    assert.equal(await fieldText(binary, 'payload'), '\\xff\\x00A');
    assert.equal(await fieldText(binary, 'payload-bytes'), '3 B');

    // In flight: the lease holder's name, its deliveries.
    await page.locator('[data-tab="inflight"]').click();
    const held = page.locator('tr[data-task="held:1"]');
    assert.equal(await fieldText(held, 'worker'), WORKER);
    assert.equal(await fieldText(held, 'deliveries'), '1');
    assert.equal(await fieldText(held, 'payload'), 'report 7');

    // Dead: the last failure reason and the deliveries it died with.
    await page.locator('[data-tab="dead"]').click();
    const dead = page.locator('tr[data-task="crash:1"]');
    assert.equal(await fieldText(dead, 'reason'), REASON);
    assert.equal(await fieldText(dead, 'deliveries'), '1');
    assert.equal(await fieldText(dead, 'worker'), '—');
    assert.equal(await fieldText(dead, 'payload'), 'resize img-9.png');

    // A task's page: DELAY.JOB's state and history.
    await dead.locator('a[data-field="task"]').click();
    const job = await z.delayJob(Q, 'crash:1', SETS);
    assert.equal(job.state, 'dead');
    assert.equal(await fieldText(page, 'state'), 'dead');
    assert.equal(await fieldText(page, 'last-reason'), job.lastReason);
    assert.equal(await fieldText(page, 'deliveries'), String(job.deliveries));
    assert.equal(await fieldText(page, 'payload'), job.payload);
    assert.equal(await fieldText(page, 'worker'), '—');
    await open(page, `${url}/task?k=${k}&t=${Buffer.from('held:1').toString('base64url')}`);
    assert.equal(await fieldText(page, 'state'), 'in flight');
    assert.equal(await fieldText(page, 'worker'), WORKER);
    await open(page, `${url}/task?k=${k}&t=${Buffer.from('binary:1').toString('base64url')}`);
    assert.equal(await fieldText(page, 'state'), 'queued (ready or scheduled)');
    assert.equal(await fieldText(page, 'payload'), '\\xff\\x00A');

    // A queue paused elsewhere shows as paused; a read-only console offers no pause or resume.
    assert.equal(await z.delayPause(Q, SETS.data), true);
    await open(page, `${url}/queue?k=${k}`);
    assert.equal((await page.locator('#paused').textContent()).trim(), 'Paused');
    assert.equal(await fieldText(page, 'paused'), 'paused');
    assert.equal(await page.locator('button[data-action]').count(), 0);
    await open(page, `${url}/queues`);
    assert.equal(await fieldText(page.locator(`tr[data-queue="${Q}"]`), 'paused'), 'paused');
    assert.equal(await z.delayResume(Q, SETS.data), true);
  } finally {
    await page.close();
    await app.close();
  }
}

/** `screenshot`: the file the dead tab is taken to, for docs/observe.md. */
async function writableViews(server, screenshot) {
  const z = zkit(server.client);
  const { app, url } = await startConsole(server.port, ['--writable']);
  const page = await session.browser.newPage({ viewport: { width: 1200, height: 700 } });
  try {
    // Retry: DELAY.RETRY with DATA, the payload and reason kept, the count it died with gone.
    await open(page, `${url}/queue?k=${k}&tab=dead`);
    if (screenshot) await page.screenshot({ path: screenshot });
    await page.locator('tr[data-task="crash:1"] button[data-action="retry"]').click();
    assert.match(await page.locator('#what').textContent(), /^DELAY\.RETRY \{work\}:dead \{work\} DATA \{work\}:data TASKS crash:1: the task is due now, with its payload and last failure reason/);
    await page.click('#confirm');
    assert.equal((await page.locator('#flash').textContent()).trim(), `crash:1 is due now in ${Q}.`);
    const retried = await z.delayJob(Q, 'crash:1', SETS);
    assert.deepEqual([retried.state, retried.payload, retried.lastReason], ['queued', 'resize img-9.png', REASON]);
    assert.equal(await server.client.hget(SETS.data, 'd:crash:1'), null);

    // Pause, confirmed: polls that name DATA deliver nothing though crash:1 is due.
    await page.locator('[data-tab="ready"]').click();
    assert.equal((await page.locator('#paused').textContent()).trim(), 'Not paused.');
    await page.locator('button[data-action="pause"]').click();
    assert.match(await page.locator('#what').textContent(), /^DELAY\.PAUSE \{work\} \{work\}:data: /);
    await page.click('#confirm');
    assert.equal((await page.locator('#flash').textContent()).trim(), `${Q} is paused.`);
    assert.equal((await page.locator('#paused').textContent()).trim(), 'Paused');
    assert.equal((await z.delayStats(Q, SETS)).paused, true);
    assert.deepEqual(await z.delayPoll(Q, { data: SETS.data, lease: { key: SETS.inflight, ms: 60_000 } }), []);

    // Resume, confirmed: the due task is delivered again.
    await page.locator('button[data-action="resume"]').click();
    await page.click('#confirm');
    assert.equal((await page.locator('#flash').textContent()).trim(), `${Q} is resumed.`);
    assert.equal((await z.delayStats(Q, SETS)).paused, false);
    const polled = await z.delayPoll(Q, { data: SETS.data, withData: true, lease: { key: SETS.inflight, ms: 60_000 } });
    assert.deepEqual(polled.map((j) => [j.task, j.payload]), [['crash:1', 'resize img-9.png']]);

    // Delete: the task goes with its payload and history.
    await open(page, `${url}/queue?k=${k}`);
    await page.locator('tr[data-task="binary:1"] button[data-action="delete-ready"]').click();
    assert.match(await page.locator('#what').textContent(), /HDEL \{work\}:data of its payload and history/);
    await page.click('#confirm');
    assert.equal(await server.client.zscore(Q, 'binary:1'), null);
    assert.equal(await server.client.hexists(SETS.data, 'p:binary:1'), 0);
    assert.equal(await server.client.hget(SETS.data, 'p:mail:1'), MARKUP, 'another task lost its payload');
  } finally {
    await page.close();
    await app.close();
  }
}

/** Groups (module only): a tenant at its cap shows as a capped group on the list and on the queue's page. */
async function cappedGroups(server) {
  const z = zkit(server.client);
  const { app, url } = await startConsole(server.port);
  const page = await session.browser.newPage({ viewport: { width: 1200, height: 700 } });
  try {
    assert.equal(await z.delayGroup(Q, SETS.data, 'acme', { cap: 1 }), true);
    const later = Date.now() + 7_200_000;
    await z.delayAdd(Q, { data: SETS.data, group: 'acme', jobs: [{ dueMs: 0, task: 'acme:1', payload: 'a' }, { dueMs: later, task: 'acme:2', payload: 'b' }] });
    const lease = { key: SETS.inflight, ms: 60_000 };
    assert.deepEqual((await z.delayPoll(Q, { data: SETS.data, lease })).map((t) => t.task), ['acme:1']);
    assert.equal((await z.delayStats(Q, SETS)).cappedGroups, 1);
    await open(page, `${url}/queues`);
    assert.equal(await fieldText(page.locator(`tr[data-queue="${Q}"]`), 'capped-groups'), '1');
    await open(page, `${url}/queue?k=${k}`);
    assert.equal(await fieldText(page, 'capped-groups'), '1');
  } finally {
    await page.close();
    await app.close();
  }
}

for (const [engine, start, screenshot] of [
  ['the module', () => startServer(), SHOTS && path.join(SHOTS, 'console-queue.png')],
  ['only the Functions library', () => startLibraryServer()],
]) {
  describe(`jobs on a server with ${engine}`, () => {
    let server;
    before(async () => {
      server = await start();
      await seedJobs(zkit(server.client));
    });
    test('read-only: payloads, attempts, reasons, holders, a task page, a paused queue', () => readOnlyViews(server));
    test('writable: a retry keeps the payload and reason; pause, resume; a delete takes the data', () => writableViews(server, screenshot));
    if (engine === 'the module') test('a tenant at its cap shows as a capped group', () => cappedGroups(server));
  });
}
