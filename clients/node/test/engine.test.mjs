// The engine a client picks: the module's commands where the server has
// them, zkit's Functions library where it has that, a ZkitNotLoaded saying
// how to load it where it has neither; and delayBpoll by polling on the
// library.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, test } from 'node:test';
import Redis from 'ioredis';
import { ZkitNotLoaded, zkit } from 'zkit';
import * as h from './helpers.mjs';

beforeEach(h.newPrefix);

test('the engine is the server\'s, on a plain server and on a cluster', async () => {
  for (const client of [h.ioredisSingle(), h.ioredisCluster()]) {
    const z = zkit(client);
    assert.deepEqual(await z.rankGift('{e}:board', 'alice', 1), { total: 1, rank: 1 });
    assert.equal(await z.engine(), h.ENGINE);
    await client.quit();
  }
});

test('a server without zkit says how to load it', { skip: h.ENGINE !== 'functions' && 'a server with only the library' }, async () => {
  const admin = new Redis(h.SERVER);
  const saved = await admin.callBuffer('FUNCTION', 'DUMP');
  await admin.call('FUNCTION', 'DELETE', 'zkit');
  try {
    const fresh = new Redis({ ...h.SERVER, keyPrefix: h.currentPrefix() });
    const z = zkit(fresh);
    await assert.rejects(z.rankGet('board', 'alice'), (e) => e instanceof ZkitNotLoaded && /loadFunctions/.test(e.message));
    const version = await z.loadFunctions();
    assert.match(version, /^\d+\.\d+\.\d+\+[0-9a-f]{12}$/);
    assert.equal(await z.loadFunctions(), version, 'loaded once');
    assert.deepEqual(await z.rankGift('board', 'alice', 2), { total: 2, rank: 1 });
    await fresh.quit();
  } finally {
    await admin.call('FUNCTION', 'RESTORE', saved, 'REPLACE');
    await admin.quit();
  }
});

test('delayBpoll waits for a task on either engine', async () => {
  const client = h.ioredisSingle();
  const z = zkit(client);
  const started = Date.now();
  assert.equal(await z.delayBpoll('{b}:jobs', 150), null);
  assert.ok(Date.now() - started >= 140);
  // Another connection adds the task: the module's DELAY.BPOLL blocks this one.
  const other = h.ioredisSingle();
  const adder = setTimeout(() => other.zadd('{b}:jobs', 0, 'mail'), 100);
  try {
    assert.deepEqual(await z.delayBpoll('{b}:jobs', 5000, { lease: { key: '{b}:inflight', ms: 60000 } }), [{ task: 'mail', dueMs: 0 }]);
  } finally {
    clearTimeout(adder);
    await other.quit();
  }
  // With `rate`: the tasks the window allows, then nothing (the window is spent) until the timeout, as the module replies.
  await client.zadd('{b}:jobs', 0, 'report', 0, 'digest');
  const rate = { log: '{b}:rate', windowMs: 60000, limit: 1 };
  assert.deepEqual(await z.delayBpoll('{b}:jobs', 5000, { rate }), [{ task: 'digest', dueMs: 0 }]);
  assert.equal(await z.delayBpoll('{b}:jobs', 150, { rate }), null);
  await assert.rejects(z.delayBpoll('{b}:jobs', -1), /^(ReplyError: )?.*timeout is negative/);
  await client.quit();
});

test('a server without the module and without Lua says so', { timeout: 60000, skip: !process.env.ZKIT_TEST_VALKEY && 'ZKIT_TEST_VALKEY names no Valkey 9 server' }, async () => {
  // Valkey 9's Lua engine is a module: unloaded, FUNCTION LOAD answers "Engine 'lua' not found".
  const port = await new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address();
      probe.close(() => resolve(free));
    });
  });
  const folder = mkdtempSync(join(tmpdir(), 'zkit-valkey-'));
  const server = spawn(process.env.ZKIT_TEST_VALKEY, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', folder, '--enable-module-command', 'yes'], { stdio: 'ignore' });
  // Refused until the server listens: ioredis connects again every 20 ms, and sends the PING then.
  const client = new Redis({ port, host: '127.0.0.1', retryStrategy: () => 20 });
  client.on('error', () => {});
  try {
    await client.ping();
    await client.call('MODULE', 'UNLOAD', 'lua');
    const z = zkit(client);
    await assert.rejects(z.rankGet('board', 'alice'), (e) => e instanceof ZkitNotLoaded && /loadFunctions/.test(e.message));
    await assert.rejects(
      z.loadFunctions(),
      (e) => e instanceof ZkitNotLoaded && /neither the zkit module nor Lua.*Engine 'lua' not found.*loadmodule/.test(e.message),
    );
  } finally {
    client.disconnect();
    const exited = once(server, 'exit');
    server.kill('SIGTERM');
    await exited;
    rmSync(folder, { recursive: true, force: true });
  }
});
