// Every zkit command through every client: ioredis Redis and Cluster
// (keyPrefix, auto-pipelining, pipelines), node-redis clients and clusters
// (zkitModule and zkit(client)); typed replies, errors, cross-slot checks.
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import Redis from 'ioredis';
import { ErrorReply } from 'redis';
import { COMMANDS, CrossSlotError, zkit } from 'zkit';
import { everyCommand, nodeRedisNative } from './every-command.mjs';
import * as h from './helpers.mjs';

const ALL = Object.keys(COMMANDS).sort();
beforeEach(h.flushAll);

test('ioredis Redis: every command', async () => {
  const r = h.ioredisSingle();
  assert.deepEqual([...(await everyCommand(zkit(r), r))].sort(), ALL);
  r.disconnect();
});

test('ioredis Cluster with keyPrefix and auto-pipelining: every command, prefixed keys', async () => {
  const r = h.ioredisCluster({ keyPrefix: 'app:', enableAutoPipelining: true });
  assert.deepEqual([...(await everyCommand(zkit(r), r))].sort(), ALL);
  const keys = (await Promise.all(r.nodes('master').map((node) => node.keys('*')))).flat().sort();
  assert.ok(keys.length > 5 && keys.every((key) => key.startsWith('app:{t}:')), keys.join());
  await r.quit();
});

test('node-redis client and cluster with zkitModule: every command', async () => {
  for (const connect of [h.nodeRedisSingle, h.nodeRedisCluster]) {
    const client = await connect();
    assert.deepEqual([...(await everyCommand(client.zkit, nodeRedisNative(client)))].sort(), ALL);
    await client.close();
  }
});

test('zkit(node-redis client or cluster): every command', async () => {
  for (const connect of [h.nodeRedisSingle, h.nodeRedisCluster]) {
    const client = await connect();
    assert.deepEqual([...(await everyCommand(zkit(client), nodeRedisNative(client)))].sort(), ALL);
    await client.close();
  }
});

test('the table covers exactly what the module registers', async () => {
  const r = h.ioredisSingle();
  const registered = (await r.call('COMMAND', 'LIST', 'FILTERBY', 'MODULE', 'zkit')).map((name) => name.toUpperCase());
  const table = Object.values(COMMANDS).map((spec) => spec.command);
  assert.deepEqual(registered.filter((name) => name !== 'ZKIT.DEBUG-PANIC').sort(), table.sort());
  r.disconnect();
});

test('pipelines and MULTI return typed replies', async () => {
  const io = h.ioredisCluster({ keyPrefix: 'app:' });
  const pipeline = io.pipeline();
  const zp = zkit(pipeline);
  zp.rankGift('{p}:board', 'alice', 5);
  zp.voteCast('{p}:s', '{p}:u', '{p}:d', 'item', 'voter', 'UP');
  assert.deepEqual(await pipeline.exec(), [
    [null, { total: 5, rank: 1 }],
    [null, { score: 1, ups: 1, downs: 0, changed: true }],
  ]);
  const multi = io.multi();
  zkit(multi).rankTop('{p}:board', 1);
  assert.deepEqual(await multi.exec(), [[null, [{ rank: 1, member: 'alice', total: 5 }]]]);
  await io.quit();

  const cluster = await h.nodeRedisCluster();
  const replies = await cluster.multi().zkit.rankGift('{m}:board', 'bob', 2).zkit.rankTop('{m}:board', 1).exec();
  assert.deepEqual(replies, [{ total: 2, rank: 1 }, [{ rank: 1, member: 'bob', total: 2 }]]);
  await cluster.close();
});

test('ioredis auto-pipelining: 200 concurrent gifts on 200 keys all succeed', async () => {
  const r = h.ioredisCluster({ enableAutoPipelining: true });
  const z = zkit(r);
  const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => z.rankGift(`board:${i}`, 'alice', i)));
  assert.deepEqual(replies, Array.from({ length: 200 }, (_, i) => ({ total: i, rank: 1 })));
  await r.quit();
});

test('RESP3 replies: scores as numbers', async () => {
  const client = await h.nodeRedisSingle();
  const resp3 = await client.duplicate({ RESP: 3 }).connect();
  await resp3.zkit.feedAdd('feed', [{ score: 0.1, member: 'a' }]);
  // As the client decodes a native ZSCORE (node-redis 5's RESP3 decoder
  // reads 0.1 as 0.10000000000000002; node-redis 6 reads 0.1).
  const score = await resp3.zScore('feed', 'a');
  assert.deepEqual((await resp3.zkit.feedPage('feed')).items, [{ member: 'a', score }]);
  assert.deepEqual(await resp3.zkit.voteCast('{v}:s', '{v}:u', '{v}:d', 'i', 'v', 'UP', { weight: { up: 0.5, down: 1 } }), {
    score: 0.5, ups: 1, downs: 0, changed: true,
  });
  await resp3.zAdd('q', { score: 5, value: 't' });
  assert.deepEqual(await resp3.zkit.delayPoll('q'), [{ task: 't', dueMs: 5 }]);
  await resp3.close();
  await client.close();
});

test('server errors surface unchanged', async () => {
  const r = h.ioredisSingle();
  await assert.rejects(zkit(r).rankGift('board', 'alice', 'ten'), (e) =>
    e instanceof Redis.ReplyError && e.message === 'ERR value is not an integer or out of range');
  r.disconnect();
  const client = await h.nodeRedisCluster();
  await client.set('{v}:up', 'not a set');
  await assert.rejects(client.zkit.voteCast('{v}:s', '{v}:up', '{v}:down', 'item', 'voter', 'UP'), (e) =>
    e instanceof ErrorReply && e.message.startsWith('WRONGTYPE'));
  await client.close();
});

test('cross-slot keys fail before anything is sent', async () => {
  const before = await h.nodeStats();
  const io = h.ioredisCluster();
  const cluster = await h.nodeRedisCluster();
  for (const z of [zkit(io), zkit(cluster), cluster.zkit]) {
    await assert.rejects(z.rankMerge('week', ['mon']), (e) =>
      e instanceof CrossSlotError && /RANK\.MERGE: .*'week'.*'mon'/.test(e.message));
    await assert.rejects(z.delayPoll('{jobs}', { lease: { key: 'jobs-inflight', ms: 1000 } }), CrossSlotError);
    await assert.rejects(z.voteCast('{n}:s', '{n}:u', '{n}:d', 'i', 'v', 'UP', { window: { key: 'times', seconds: 9 } }), CrossSlotError);
  }
  await io.quit();
  await cluster.close();
  const after = await h.nodeStats();
  for (const name of ['cmdstat_rank.merge', 'cmdstat_delay.poll', 'cmdstat_vote.cast']) {
    assert.deepEqual(after.map((s) => s[name]), before.map((s) => s[name]), `${name} reached a server`);
  }
});

test('cross-slot keys work through zkit(client) on one server', async () => {
  const r = h.ioredisSingle();
  await zkit(r).rankGift('mon', 'alice', 3);
  assert.equal(await zkit(r).rankMerge('week', ['mon']), 1);
  r.disconnect();
});
