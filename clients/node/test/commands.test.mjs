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
  const more = await cluster.multi()
    .zkit.rankMgift(['{m}:board', '{m}:week'], 'bob', 3)
    .zkit.rankMget('{m}:board', ['bob', 'nobody'])
    .zkit.rateHit('{m}:rate', [{ windowMs: 1000, limit: 1 }, { windowMs: 2000, limit: 2 }])
    .exec();
  assert.deepEqual(more.map((reply, i) => (i === 1 ? reply.map((info) => info && info.total) : reply)), [
    [{ total: 5, rank: 1 }, { total: 3, rank: 1 }],
    [5, null],
    { allowed: true, count: 1, remaining: 0, retryAfterMs: -1, binding: 1 },
  ]);
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
  assert.deepEqual(await resp3.zkit.rankMgift(['{r}:b', '{r}:c'], 'a', 5, { at: 1718000000000 }), [{ total: 5, rank: 1 }, { total: 5, rank: 1 }]);
  assert.deepEqual(await resp3.zkit.rankMget('{r}:b', ['a', 'x'], { shared: true }), [{ total: 5, rank: 1, reachedAtMs: 1718000000000 }, null]);
  assert.deepEqual(await resp3.zkit.rateHit('rl', [{ windowMs: 1000, limit: 2 }, { windowMs: 2000, limit: 5 }]), {
    allowed: true, count: 1, remaining: 1, retryAfterMs: -1, binding: 1,
  });
  assert.equal(await resp3.zkit.delayTouch('q', 't', 1000), false);
  await resp3.close();
  await client.close();
});

test('server errors surface unchanged', async () => {
  const r = h.ioredisSingle();
  await assert.rejects(zkit(r).rankGift('board', 'alice', 'ten'), (e) =>
    e instanceof Redis.ReplyError && e.message === 'ERR value is not an integer or out of range');
  await assert.rejects(zkit(r).rankSet('board', 'alice', 1, { gt: true, lt: true }), (e) =>
    e instanceof Redis.ReplyError && e.message === 'ERR syntax error');
  const deadLetter = { dead: 'q', deliveries: 'n', maxDeliveries: 1 };
  await assert.rejects(zkit(r).delayPoll('q', { lease: { key: 'i', ms: 1 }, deadLetter }), (e) =>
    e instanceof Redis.ReplyError && e.message.startsWith('ERR the dead-letter and deliveries sets must differ'));
  r.disconnect();
  const client = await h.nodeRedisCluster();
  await client.set('{v}:up', 'not a set');
  await assert.rejects(client.zkit.voteCast('{v}:s', '{v}:up', '{v}:down', 'item', 'voter', 'UP'), (e) =>
    e instanceof ErrorReply && e.message.startsWith('WRONGTYPE'));
  await assert.rejects(client.zkit.rankMgift(['{v}:board', '{v}:board'], 'm', 1), (e) =>
    e instanceof ErrorReply && e.message === 'ERR a board is named twice: give each key once');
  await assert.rejects(client.zkit.delayNack('{v}:inflight', '{v}:up', 'task', 0), (e) =>
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
    await assert.rejects(z.rankMgift(['{r}:day', '{r}:week', 'all'], 'bob', 1), (e) =>
      e instanceof CrossSlotError && /RANK\.MGIFT: .*'all'/.test(e.message));
    await assert.rejects(z.delayNack('{jobs}:inflight', 'jobs-queue', 'task', 0), CrossSlotError);
    await assert.rejects(z.delayAck('{jobs}:inflight', 'task', { deliveries: 'deliveries' }), CrossSlotError);
    const lease = { key: '{jobs}:inflight', ms: 1000 };
    await assert.rejects(z.delayBpoll('{jobs}', 1, { lease, deadLetter: { dead: 'dead', deliveries: '{jobs}:n', maxDeliveries: 3 } }), CrossSlotError);
    await assert.rejects(z.delayPoll('{jobs}', { lease, deadLetter: { dead: '{jobs}:dead', deliveries: 'n', maxDeliveries: 3 } }), CrossSlotError);
  }
  await io.quit();
  await cluster.close();
  const after = await h.nodeStats();
  for (const name of [
    'cmdstat_rank.merge', 'cmdstat_delay.poll', 'cmdstat_vote.cast',
    'cmdstat_rank.mgift', 'cmdstat_delay.nack', 'cmdstat_delay.ack', 'cmdstat_delay.bpoll',
  ]) {
    assert.deepEqual(after.map((s) => s[name]), before.map((s) => s[name]), `${name} reached a server`);
  }
});

test('a value spelled like an option read from the end never becomes the option', async () => {
  const calls = async () => {
    const sum = (name) => (stats) => stats.reduce((total, node) => total + (node[name] ?? 0), 0);
    const stats = await h.nodeStats();
    return { mget: sum('cmdstat_rank.mget')(stats), ack: sum('cmdstat_delay.ack')(stats) };
  };
  const before = await calls();
  const io = h.ioredisCluster({ keyPrefix: 'app:' });
  const cluster = await h.nodeRedisCluster();
  for (const [z, zadd, zrange] of [
    [zkit(io), (key, ...pairs) => io.zadd(key, ...pairs.flat()), (key) => io.zrange(key, 0, -1)],
    [cluster.zkit, (key, ...pairs) => cluster.zAdd(key, pairs.map(([score, value]) => ({ score, value }))), (key) => cluster.zRange(key, 0, -1)],
  ]) {
    await h.flushAll();
    await z.rankGift('{b}:board', 'SHARED', 5, { at: 1718000000000 });
    await z.rankGift('{b}:board', 'cat', 5, { at: 1718000001000 });
    // RANK.MGET reads a last argument spelled SHARED (any case) as the option.
    assert.deepEqual(await z.rankMget('{b}:board', ['SHARED', 'cat'], { shared: true }), [
      { total: 5, rank: 1, reachedAtMs: 1718000000000 },
      { total: 5, rank: 1, reachedAtMs: 1718000001000 },
    ]);
    for (const last of ['SHARED', 'shared', Buffer.from('Shared')]) {
      await assert.rejects(z.rankMget('{b}:board', ['cat', last]), (e) =>
        e instanceof TypeError && /RANK\.MGET: .*SHARED.*earlier/.test(e.message));
    }
    // DELAY.ACK reads DELIVERIES from the end: such a task goes last, where it is a task.
    const inflight = '{b}:inflight';
    const deliveries = '{b}:deliveries';
    await zadd(inflight, [1, 'DELIVERIES'], [1, 'a'], [1, 'b'], [1, 'c']);
    await zadd(deliveries, [1, 'DELIVERIES'], [1, 'a'], [1, 'b'], [1, 'c'], [1, 'x']);
    assert.equal(await z.delayAck(inflight, ['a', 'DELIVERIES', 'x']), 2); // not 'a' with DELIVERIES x
    assert.equal(await z.delayAck(inflight, ['deliveries', 'b']), 1); // not DELIVERIES b alone: a syntax error
    await assert.rejects(z.delayAck(inflight, ['DELIVERIES', 'c', 'Deliveries']), (e) =>
      e instanceof TypeError && /DELAY\.ACK: at most one/.test(e.message));
    assert.equal(await z.delayAck(inflight, ['c'], { deliveries }), 1);
    // Only c's count went: no task was taken for the option's key.
    assert.deepEqual(await zrange(deliveries), ['DELIVERIES', 'a', 'b', 'x']);
  }
  await io.quit();
  await cluster.close();
  // The refused calls never reached a server: one MGET and three ACKs per client did.
  assert.deepEqual(await calls(), { mget: before.mget + 2, ack: before.ack + 6 });
});

test('cross-slot keys work through zkit(client) on one server', async () => {
  const r = h.ioredisSingle();
  await zkit(r).rankGift('mon', 'alice', 3);
  assert.equal(await zkit(r).rankMerge('week', ['mon']), 1);
  r.disconnect();
});
