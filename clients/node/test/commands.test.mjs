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
/** A scenario called methods of commands only; every command is called, through its method, by declared-examples.test.mjs. */
const calledSome = (called) => assert.ok(called.size > 0 && [...called].every((name) => ALL.includes(name)), [...called].join());
beforeEach(h.newPrefix);

test('ioredis Redis: every command', async () => {
  const r = h.ioredisSingle();
  calledSome(await everyCommand(zkit(r), r));
  r.disconnect();
});

test('ioredis Cluster with keyPrefix and auto-pipelining: every command, prefixed keys', async () => {
  const r = h.ioredisCluster({ keyPrefix: 'app:', enableAutoPipelining: true });
  calledSome(await everyCommand(zkit(r), r));
  const keys = (await Promise.all(r.nodes('master').map((node) => node.keys(`${h.currentPrefix()}*`)))).flat().sort();
  assert.ok(keys.length > 5 && keys.every((key) => key.startsWith(`${h.currentPrefix()}app:{t}:`)), keys.join());
  await r.quit();
});

test('node-redis client and cluster with zkitModule: every command', async () => {
  for (const connect of [h.nodeRedisSingle, h.nodeRedisCluster]) {
    const client = await connect();
    let commands = client.zkit;
    if (h.ENGINE === 'functions') {
      // The library cannot block: the node-redis module's DELAY.BPOLL says
      // so, and zkit(client).delayBpoll polls instead (docs/functions.md).
      await assert.rejects(async () => client.zkit.delayBpoll('{t}:jobs', 1), /cannot block/);
      const polling = zkit(client);
      commands = new Proxy(client.zkit, {
        get: (target, name) => (name === 'delayBpoll' ? polling.delayBpoll.bind(polling) : target[name].bind(target)),
      });
    }
    calledSome(await everyCommand(commands, nodeRedisNative(client)));
    await client.close();
  }
});

test('zkit(node-redis client or cluster): every command', async () => {
  for (const connect of [h.nodeRedisSingle, h.nodeRedisCluster]) {
    const client = await connect();
    calledSome(await everyCommand(zkit(client), nodeRedisNative(client)));
    await client.close();
  }
});

test('the table covers exactly what the module registers, or the library has', async () => {
  const r = h.ioredisSingle();
  const table = Object.values(COMMANDS).map((spec) => spec.command);
  if (h.ENGINE === 'functions') {
    // The library's functions, but its helpers and the blocking DELAY.BPOLL (the client polls).
    const [library] = await r.call('FUNCTION', 'LIST', 'LIBRARYNAME', 'zkit');
    const functions = library[library.indexOf('functions') + 1].map((f) => f[f.indexOf('name') + 1]);
    const expected = table.filter((c) => c !== 'DELAY.BPOLL').map((c) => `zkit_${c.toLowerCase().replace('.', '_')}`);
    assert.deepEqual(functions.filter((f) => !['zkit_keys', 'zkit_version'].includes(f)).sort(), expected.sort());
  } else {
    const registered = (await r.call('COMMAND', 'LIST', 'FILTERBY', 'MODULE', 'zkit')).map((name) => name.toUpperCase());
    assert.deepEqual(registered.filter((name) => name !== 'ZKIT.DEBUG-PANIC').sort(), table.sort());
  }
  r.disconnect();
});

test('pipelines and MULTI return typed replies', async () => {
  const io = h.ioredisCluster({ keyPrefix: 'app:' });
  // A pipeline cannot ask the server whether it has the module or the
  // library: a call on its client first finds out, for the pipelines after.
  await zkit(io).engine();
  const pipeline = io.pipeline();
  const zp = zkit(pipeline);
  zp.rankGift('{p}:board', 'alice', 5);
  zp.voteCast('{p}:s', '{p}:u', '{p}:d', 'item', 'voter', 'UP');
  zp.delayTouch('{p}:inflight', 'task', 1000, { token: 1718000060000 }); // a token, even 0: not a flag
  assert.deepEqual(await pipeline.exec(), [
    [null, { total: 5, rank: 1 }],
    [null, { score: 1, ups: 1, downs: 0, changed: true }],
    [null, 0],
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
    .zkit.delayTouch('{m}:inflight', 'task', 1000, { token: 1718000060000 })
    .zkit.delayTouch('{m}:inflight', 'task', 1000)
    .exec();
  assert.deepEqual(more.map((reply, i) => (i === 1 ? reply.map((info) => info && info.total) : reply)), [
    [{ total: 5, rank: 1 }, { total: 3, rank: 1 }],
    [5, null],
    { allowed: true, count: 1, remaining: 0, retryAfterMs: -1, binding: 1 },
    0,
    false,
  ]);
  await cluster.close();
});

test('IDMP: a retried gift, total, multi-gift or hit applies once, and the data shows it', async () => {
  const io = h.ioredisCluster({ keyPrefix: 'app:' });
  const single = await h.nodeRedisSingle();
  const cluster = await h.nodeRedisCluster();
  const clients = [[zkit(io), io], [zkit(single), nodeRedisNative(single)], [cluster.zkit, nodeRedisNative(cluster)]];
  for (const [n, [z, native]] of clients.entries()) {
    // The example: a redelivered payment callback gifts once.
    const [board, seen] = [`{room:${n}}:board`, `{room:${n}}:seen`];
    const before = Date.now();
    assert.deepEqual(await z.rankGift(board, 'alice', 10, { idmp: [seen, 'pay-881'] }), { total: 10, rank: 1, alreadyApplied: false });
    const after = Date.now();
    assert.deepEqual(await z.rankGift(board, 'alice', 10, { idmp: [seen, 'pay-881'] }), { total: 10, rank: 1, alreadyApplied: true });
    assert.equal((await z.rankGet(board, 'alice')).total, 10); // the total stays 10
    // The id's member is scored its expiry + 0.25: 24 h by default (zkit.idmp-retain-ms).
    const forgetAt = Math.floor(Number(await native.zscore(seen, 'pay-881')));
    assert.ok(forgetAt >= before + 86400000 && forgetAt <= after + 86400000, `forgotten at ${forgetAt}`);
    assert.deepEqual(await z.rankGift(board, 'alice', 1), { total: 11, rank: 1 }); // no idmp: no flag

    // SET: a late retry does not overwrite a newer total; RETAIN sets the memory.
    const setAt = Date.now();
    assert.deepEqual(await z.rankSet(board, 'bob', 5, { idmp: [seen, 'set-1'], retain: 60000 }), { total: 5, rank: 2, alreadyApplied: false });
    const forgetSet = Math.floor(Number(await native.zscore(seen, 'set-1')));
    assert.ok(forgetSet >= setAt + 60000 && forgetSet <= Date.now() + 60000, `forgotten at ${forgetSet}`);
    assert.deepEqual(await z.rankSet(board, 'bob', 9), { total: 9, rank: 2 });
    assert.deepEqual(await z.rankSet(board, 'bob', 5, { idmp: [seen, 'set-1'], retain: 60000 }), { total: 9, rank: 2, alreadyApplied: true });

    // MGIFT: the flag on every board.
    const week = `{room:${n}}:week`;
    const mgift = { idmp: [seen, 'm-1'] };
    assert.deepEqual(await z.rankMgift([board, week], 'bob', 3, mgift), [{ total: 12, rank: 1, alreadyApplied: false }, { total: 3, rank: 1, alreadyApplied: false }]);
    assert.deepEqual(await z.rankMgift([board, week], 'bob', 3, mgift), [{ total: 12, rank: 1, alreadyApplied: true }, { total: 3, rank: 1, alreadyApplied: true }]);

    // RATE.HIT: counted once; a refused hit is not remembered.
    const rate = `{room:${n}}:rate`;
    assert.deepEqual(await z.rateHit(rate, 60000, 2, { idmp: [seen, 'req-1'] }), { allowed: true, count: 1, remaining: 1, retryAfterMs: -1, binding: 1, alreadyApplied: false });
    assert.deepEqual(await z.rateHit(rate, 60000, 2, { idmp: [seen, 'req-1'] }), { allowed: true, count: 1, remaining: 1, retryAfterMs: -1, binding: 1, alreadyApplied: true });
    assert.deepEqual(await z.rateHit(rate, 60000, 2, { cost: 1, idmp: [seen, 'req-2'] }), { allowed: true, count: 2, remaining: 0, retryAfterMs: -1, binding: 1, alreadyApplied: false });
    const refused = await z.rateHit(rate, [{ windowMs: 60000, limit: 2 }, { windowMs: 120000, limit: 5 }], { idmp: [seen, 'req-3'] });
    assert.deepEqual([refused.allowed, refused.count, refused.binding, refused.alreadyApplied], [false, 2, 1, false]);
    assert.equal(await native.zscore(seen, 'req-3'), null);

    // A repeat after the member left the board changes nothing: total 0, rank 0.
    await z.rankGift(board, 'carol', 4, { idmp: [seen, 'pay-9'] });
    await native.zrem(board, 'carol');
    assert.deepEqual(await z.rankGift(board, 'carol', 4, { idmp: [seen, 'pay-9'] }), { total: 0, rank: 0, alreadyApplied: true });
    assert.equal(await native.zscore(board, 'carol'), null);
    // Six ids remembered (the refused req-3 is not), each as two members: the
    // id, and the id with its arguments' digest (docs/delivery.md).
    assert.equal(await native.zcard(seen), 12);
  }
  // IDMP takes [seenKey, eventId], checked before anything is sent.
  await assert.rejects(zkit(io).rankGift('{room:0}:board', 'dave', 1, { idmp: { seenKey: '{room:0}:seen', eventId: 'x' } }), (e) =>
    e instanceof TypeError && e.message === 'RANK.GIFT: idmp must be [seenKey, eventId]');
  assert.equal(await io.zscore('{room:0}:board', 'dave'), null);
  await io.quit();
  await single.close();
  await cluster.close();
});

test('pipelines and MULTI parse IDMP replies', async () => {
  const io = h.ioredisCluster({ keyPrefix: 'app:' });
  const pipeline = io.pipeline();
  const zp = zkit(pipeline);
  for (let i = 0; i < 2; i++) {
    zp.rankGift('{p}:board', 'alice', 10, { idmp: ['{p}:seen', 'pay-1'] });
    zp.rateHit('{p}:rate', 60000, 5, { idmp: ['{p}:seen', 'hit-1'] });
    zp.rateHit('{p}:rate', [{ windowMs: 60000, limit: 5 }, { windowMs: 120000, limit: 9 }]);
  }
  assert.deepEqual(await pipeline.exec(), [
    [null, { total: 10, rank: 1, alreadyApplied: false }],
    [null, { allowed: true, count: 1, remaining: 4, retryAfterMs: -1, binding: 1, alreadyApplied: false }],
    [null, { allowed: true, count: 2, remaining: 3, retryAfterMs: -1, binding: 1 }],
    [null, { total: 10, rank: 1, alreadyApplied: true }],
    [null, { allowed: true, count: 2, remaining: 3, retryAfterMs: -1, binding: 1, alreadyApplied: true }],
    [null, { allowed: true, count: 3, remaining: 2, retryAfterMs: -1, binding: 1 }],
  ]);
  const multi = io.multi();
  zkit(multi).rankMgift(['{p}:board', '{p}:all'], 'bob', 2, { idmp: ['{p}:seen', 'm-1'] });
  zkit(multi).rankMgift(['{p}:board', '{p}:all'], 'bob', 2, { idmp: ['{p}:seen', 'm-1'] });
  assert.deepEqual(await multi.exec(), [
    [null, [{ total: 2, rank: 2, alreadyApplied: false }, { total: 2, rank: 1, alreadyApplied: false }]],
    [null, [{ total: 2, rank: 2, alreadyApplied: true }, { total: 2, rank: 1, alreadyApplied: true }]],
  ]);
  await io.quit();

  // node-redis hands the module's parser whether the call gave IDMP (parser.preserve).
  for (const connect of [h.nodeRedisSingle, h.nodeRedisCluster]) {
    const client = await connect();
    const once = { idmp: ['{m}:seen', 'set-1'] };
    const replies = await client.multi()
      .zkit.rankSet('{m}:board', 'bob', 2, once)
      .zkit.rankSet('{m}:board', 'bob', 2, once)
      .zkit.rateHit('{m}:rate', [{ windowMs: 60000, limit: 1 }, { windowMs: 120000, limit: 2 }], { idmp: ['{m}:seen', 'hit-1'] })
      .zkit.rateHit('{m}:rate', [{ windowMs: 60000, limit: 1 }, { windowMs: 120000, limit: 2 }], { idmp: ['{m}:seen', 'hit-1'] })
      .zkit.rankGet('{m}:board', 'bob')
      .exec();
    assert.deepEqual(replies.slice(0, 4), [
      { total: 2, rank: 1, alreadyApplied: false },
      { total: 2, rank: 1, alreadyApplied: true },
      { allowed: true, count: 1, remaining: 0, retryAfterMs: -1, binding: 1, alreadyApplied: false },
      { allowed: true, count: 1, remaining: 0, retryAfterMs: -1, binding: 1, alreadyApplied: true },
    ]);
    assert.equal(replies[4].total, 2);
    await client.close();
  }
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
  await resp3.zAdd('q', { score: 5, value: 't' });
  const [fenced] = await resp3.zkit.delayPoll('q', { lease: { key: 'q', ms: 60000 }, withTokens: true });
  assert.equal(fenced.token, await resp3.zScore('q', 't'));
  assert.ok((await resp3.zkit.delayTouch('q', 't', 1000, { token: fenced.token })) > 0);
  await resp3.close();
  await client.close();
});

test('server errors surface unchanged', async () => {
  const r = h.ioredisSingle();
  await assert.rejects(zkit(r).rankGift('board', 'alice', 'ten'), (e) =>
    e instanceof Redis.ReplyError && e.message === 'ERR value is not an integer or out of range');
  await assert.rejects(zkit(r).rankSet('board', 'alice', 1, { gt: true, lt: true }), (e) =>
    e instanceof Redis.ReplyError && e.message.startsWith('ERR syntax error: GT and LT exclude each other; usage: RANK.SET key '));
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
  // Keys of their own hash tags (the test's key prefix has none): their slots differ.
  for (const z of [zkit(io), zkit(cluster), cluster.zkit]) {
    await assert.rejects(z.rankMerge('{week}', ['{mon}']), (e) =>
      e instanceof CrossSlotError && /RANK\.MERGE: .*\{week\}'.*\{mon\}'/.test(e.message));
    await assert.rejects(z.delayPoll('{jobs}', { lease: { key: '{jobs-inflight}', ms: 1000 } }), CrossSlotError);
    await assert.rejects(z.voteCast('{n}:s', '{n}:u', '{n}:d', 'i', 'v', 'UP', { window: { key: '{times}', seconds: 9 } }), CrossSlotError);
    await assert.rejects(z.rankMgift(['{r}:day', '{r}:week', '{all}'], 'bob', 1), (e) =>
      e instanceof CrossSlotError && /RANK\.MGIFT: .*\{all\}'/.test(e.message));
    await assert.rejects(z.delayNack('{jobs}:inflight', '{jobs-queue}', 'task', 0), CrossSlotError);
    await assert.rejects(z.delayAck('{jobs}:inflight', 'task', { deliveries: '{deliveries}' }), CrossSlotError);
    const lease = { key: '{jobs}:inflight', ms: 1000 };
    await assert.rejects(z.delayBpoll('{jobs}', 1, { lease, deadLetter: { dead: '{dead}', deliveries: '{jobs}:n', maxDeliveries: 3 } }), CrossSlotError);
    await assert.rejects(z.delayPoll('{jobs}', { lease, deadLetter: { dead: '{jobs}:dead', deliveries: '{n}', maxDeliveries: 3 } }), CrossSlotError);
    // The IDMP seen-key shares the board's slot.
    await assert.rejects(z.rankGift('{a}:board', 'alice', 1, { idmp: ['{b}:seen', 'pay-1'] }), (e) =>
      e instanceof CrossSlotError && /RANK\.GIFT: .*\{a\}:board'.*\{b\}:seen'/.test(e.message));
    await assert.rejects(z.rateHit('{a}:rate', 1000, 1, { idmp: ['{b}:seen', 'hit-1'] }), CrossSlotError);
  }
  await io.quit();
  await cluster.close();
  const after = await h.nodeStats();
  for (const name of h.callStats([
    'RANK.MERGE', 'DELAY.POLL', 'VOTE.CAST', 'RANK.MGIFT', 'DELAY.NACK', 'DELAY.ACK', 'DELAY.BPOLL', 'RANK.GIFT', 'RATE.HIT',
  ])) {
    assert.deepEqual(after.map((s) => s[name]), before.map((s) => s[name]), `${name} reached a server`);
  }
});

// Every keyword of the command, as its table has it, in upper and lower case.
const keywordsOf = (method) =>
  COMMANDS[method].layout
    .flatMap((part) => (part.kind === 'choice' ? part.alternatives : 'token' in part ? [part] : []))
    .flatMap(({ token }) => [token, token.toLowerCase()]);

/** Runs `scenario(key, id)` with a neutral id and with every keyword of the method as the id: the results must match. */
async function assertKeywordsAreIds(method, scenario) {
  const [neutral, ...others] = await Promise.all(['neutral', ...keywordsOf(method)].map(async (id, i) => ({ id, got: await scenario(`{k}:${method}:${i}`, id) })));
  assert.ok(others.length >= 4, `${method}: ${others.length} spellings`);
  for (const { id, got } of others) assert.deepEqual(got, neutral.got, `${method} with an id spelled ${id}`);
}

test('members, tasks and items spelled like a keyword of their command are ids like any other (0.3 syntax)', async () => {
  const io = h.ioredisCluster({ keyPrefix: 'app:' });
  const cluster = await h.nodeRedisCluster();
  const as = (id) => (value) => (value === id ? 'ID' : value);
  for (const [z, native] of [[zkit(io), io], [cluster.zkit, nodeRedisNative(cluster)]]) {
    await assertKeywordsAreIds('rankMget', async (board, id) => {
      await z.rankGift(board, id, 5, { at: 1718000000000 });
      await z.rankGift(board, 'cat', 5, { at: 1718000001000 });
      return [await z.rankMget(board, [id, 'cat'], { shared: true }), await z.rankMget(board, ['cat', id]), await z.rankMget(board, id)];
    });
    await assertKeywordsAreIds('delayAck', async (key, id) => {
      const [inflight, deliveries] = [`${key}:inflight`, `${key}:deliveries`];
      await native.zadd(inflight, 1, id, 1, 'a', 1, 'b');
      await native.zadd(deliveries, 1, id, 1, 'a', 1, 'b');
      const acked = [await z.delayAck(inflight, ['a', id], { deliveries }), await z.delayAck(inflight, [id, 'b']), await z.delayAck(inflight, id)];
      await native.zadd(inflight, 1, id, 1, 'c'); // delivered under the token 1
      acked.push(await z.delayAck(inflight, { leases: [{ task: 'c', token: 1 }, { task: id, token: 1 }], deliveries }));
      return [acked, (await native.zrange(inflight, 0, -1)).map(as(id)), (await native.zrange(deliveries, 0, -1)).map(as(id))];
    });
    await assertKeywordsAreIds('recentAdd', async (key, id) => {
      const sizes = [await z.recentAdd(key, [id, 'x', 'y'], { cap: 3, ttl: 60 }), await z.recentAdd(key, ['z', id], { cap: 3 }), await z.recentAdd(key, id)];
      return [sizes, (await native.zrevrange(key, 0, -1)).map(as(id))];
    });
    // An IDMP event id (and a member) spelled like a keyword of RANK.GIFT, IDMP and RETAIN included.
    await assertKeywordsAreIds('rankGift', async (board, id) => {
      const once = { idmp: [`${board}:seen`, id], retain: 60000 };
      // The retry repeats the call's arguments (AT included): with other ones it would be another event.
      const gifts = [await z.rankGift(board, id, 5, { at: 1718000000000, ...once }), await z.rankGift(board, id, 5, { at: 1718000000000, ...once })];
      // The seen-key holds the id and the id with its arguments' digest, which differs by id: compare the id alone.
      const seen = `${board}:seen`;
      return [gifts, await native.zcard(seen), (await native.zscore(seen, id)) !== null, (await native.zrange(board, 0, -1)).map(as(id))];
    });
  }
  await io.quit();
  await cluster.close();
});

test('DELAY.ACK takes either tasks or leases, and says so before sending', async () => {
  const r = h.ioredisSingle();
  const z = zkit(r);
  const sent = async () => (await r.info('commandstats')).match(/^cmdstat_(?:delay\.ack|fcall):calls=(\d+)/m)?.[1];
  const before = await sent();
  const either = (e) => e instanceof TypeError && e.message === 'DELAY.ACK: give either tasks or leases';
  await assert.rejects(z.delayAck('{jobs}:inflight', undefined), either);
  await assert.rejects(z.delayAck('{jobs}:inflight', { deliveries: '{jobs}:n' }), either);
  await assert.rejects(z.delayAck('{jobs}:inflight', 'mail:1', { leases: [{ task: 'mail:2', token: 1718000060000 }] }), either);
  await assert.rejects(z.delayAck('{jobs}:inflight', { leases: [] }), (e) => e instanceof TypeError && e.message === 'DELAY.ACK: expected at least one value');
  await assert.rejects(z.delayAck('{jobs}:inflight', { leases: [{ task: 'mail:1' }] }), (e) =>
    e instanceof TypeError && e.message === 'DELAY.ACK: each of leases needs task and token');
  assert.equal(await sent(), before);
  r.disconnect();
});

for (const topology of ['single', 'cluster']) {
  test(`${topology}: a stale holder's late ACK, NACK and TOUCH change nothing`, async () => {
    const r = topology === 'single' ? h.ioredisSingle() : h.ioredisCluster();
    const z = zkit(r);
    await r.zadd('{jobs}', 1, 'mail:1');
    const [first] = await z.delayPoll('{jobs}', { lease: { key: '{jobs}:inflight', ms: 1 }, withTokens: true }); // ends a ms later
    let second;
    for (const deadline = Date.now() + 10000; !second; await new Promise((resolve) => setTimeout(resolve, 5))) {
      [second] = await z.delayPoll('{jobs}:inflight', { lease: { key: '{jobs}:inflight', ms: 60000 }, withTokens: true });
      assert.ok(second || Date.now() < deadline, 'the lease did not end');
    }
    assert.ok(second.task === 'mail:1' && second.token > first.token, `${first.token} then ${second.token}`);
    const state = async () => [await r.zrange('{jobs}:inflight', 0, -1, 'WITHSCORES'), await r.zrange('{jobs}', 0, -1, 'WITHSCORES')];
    const takenOver = await state();
    assert.deepEqual(takenOver, [['mail:1', String(second.token)], []]);
    assert.equal(await z.delayAck('{jobs}:inflight', { leases: [first] }), 0);
    assert.equal(await z.delayNack('{jobs}:inflight', '{jobs}', 'mail:1', 0, { token: first.token }), false);
    assert.equal(await z.delayTouch('{jobs}:inflight', 'mail:1', 60000, { token: first.token }), 0);
    assert.deepEqual(await state(), takenOver);
    const renewed = await z.delayTouch('{jobs}:inflight', 'mail:1', 60000, { token: second.token });
    assert.deepEqual((await state())[0], ['mail:1', String(renewed)]);
    assert.equal(await z.delayAck('{jobs}:inflight', { leases: [{ task: 'mail:1', token: renewed }] }), 1);
    assert.deepEqual(await state(), [[], []]);
    r.disconnect();
  });
}

test('cross-slot keys work through zkit(client) on one server', async () => {
  const r = h.ioredisSingle();
  await zkit(r).rankGift('{mon}', 'alice', 3);
  assert.equal(await zkit(r).rankMerge('{week}', ['{mon}']), 1);
  r.disconnect();
});
