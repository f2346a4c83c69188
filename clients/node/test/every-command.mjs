// One call or more of every zkit command through a zkit wrapper (or a
// node-redis client's `zkit` module namespace), checking every reply.
import assert from 'node:assert/strict';

const POSTED_AT = 1795313748;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs every command on `z` (its methods), with `native` for plain sorted-set commands; returns the method names called. */
export async function everyCommand(z, native) {
  const called = new Set();
  const c = new Proxy(z, { get: (target, name) => (called.add(name), target[name].bind(target)) });

  assert.deepEqual(await c.rankGift('{t}:mon', 'alice', 100, { at: 1718000000000 }), { total: 100, rank: 1 });
  assert.deepEqual(await c.rankGift('{t}:mon', 'bob', 50), { total: 50, rank: 2 });
  // IDMP: a retried event changes nothing and says so.
  const once = { idmp: ['{t}:seen', 'pay-881'] };
  assert.deepEqual(await c.rankGift('{t}:room', 'alice', 10, once), { total: 10, rank: 1, alreadyApplied: false });
  assert.deepEqual(await c.rankGift('{t}:room', 'alice', 10, once), { total: 10, rank: 1, alreadyApplied: true });
  assert.deepEqual(await c.rankSet('{t}:room', 'bob', 5, { idmp: ['{t}:seen', 'set-1'], retain: 60000 }), { total: 5, rank: 2, alreadyApplied: false });
  const mgift = { idmp: ['{t}:seen', 'm-1'] };
  assert.deepEqual(await c.rankMgift(['{t}:room'], 'bob', 1, mgift), [{ total: 6, rank: 2, alreadyApplied: false }]);
  assert.deepEqual(await c.rankMgift(['{t}:room'], 'bob', 1, mgift), [{ total: 6, rank: 2, alreadyApplied: true }]);
  const hit = { idmp: ['{t}:seen', 'hit-1'] };
  assert.deepEqual(await c.rateHit('{t}:hits', 60000, 1, hit), { allowed: true, count: 1, remaining: 0, retryAfterMs: -1, binding: 1, alreadyApplied: false });
  assert.deepEqual(await c.rateHit('{t}:hits', 60000, 1, hit), { allowed: true, count: 1, remaining: 0, retryAfterMs: -1, binding: 1, alreadyApplied: true });
  // The flag is the last element whatever the reply's shape: a retried hit on
  // several limits (under its own event id) says so too.
  const several = { idmp: ['{t}:seen', 'hit-2'] };
  for (const alreadyApplied of [false, true]) {
    assert.deepEqual(await c.rateHit('{t}:hits2', [{ windowMs: 60000, limit: 1 }, { windowMs: 1000, limit: 5 }], several), {
      allowed: true, count: 1, remaining: 0, retryAfterMs: -1, binding: 1, alreadyApplied,
    });
  }
  assert.deepEqual(await c.rankSet('{t}:mon', 'bob', 100, { at: 1718000001000 }), { total: 100, rank: 2 });
  assert.deepEqual(await c.rankGet('{t}:mon', 'bob'), { total: 100, rank: 2, reachedAtMs: 1718000001000 });
  assert.equal(await c.rankGet('{t}:mon', 'nobody'), null);
  const top = [{ rank: 1, member: 'alice', total: 100 }, { rank: 2, member: 'bob', total: 100 }];
  assert.deepEqual(await c.rankTop('{t}:mon', 10), top);
  assert.deepEqual(await c.rankTop('{t}:mon', 1, { offset: 1 }), top.slice(1));
  assert.deepEqual(await c.rankAround('{t}:mon', 'bob', 1), top);
  assert.equal(await c.rankMerge('{t}:week', ['{t}:mon', '{t}:mon'], { weights: [1, 2] }), 2);
  // In steps of one member: alice, then bob, whose step also ends the merge.
  const firstStep = await c.rankMerge('{t}:week2', ['{t}:mon'], { step: { count: 1, staging: '{t}:staging', cursor: '0' } });
  assert.equal(firstStep.staged, 1);
  assert.notEqual(String(firstStep.cursor), '0');
  const lastStep = await c.rankMerge('{t}:week2', ['{t}:mon'], { step: { count: 1, staging: '{t}:staging', cursor: firstStep.cursor } });
  assert.deepEqual([String(lastStep.cursor), lastStep.staged], ['0', 2]);
  assert.deepEqual(await c.rankTop('{t}:week2', 10), await c.rankTop('{t}:mon', 10));
  assert.equal((await c.rankGet('{t}:week', 'alice')).total, 300);

  // SHARED: a 100, b 100, d 100 (in that order), c 99: positions 1 2 3 4, shared ranks 1 1 1 4.
  assert.deepEqual(await c.rankSet('{t}:tie', 'a', 100, { at: 1718000000000, shared: true }), { total: 100, rank: 1 });
  assert.deepEqual(await c.rankGift('{t}:tie', 'b', 100, { at: 1718000001000 }), { total: 100, rank: 2 });
  assert.deepEqual(await c.rankGift('{t}:tie', 'c', 99, { at: 1718000001500, shared: true }), { total: 99, rank: 3 });
  assert.deepEqual(await c.rankGift('{t}:tie', 'd', 100, { at: 1718000002000, shared: true }), { total: 100, rank: 1 });
  const shared = [
    { rank: 1, member: 'a', total: 100 },
    { rank: 1, member: 'b', total: 100 },
    { rank: 1, member: 'd', total: 100 },
    { rank: 4, member: 'c', total: 99 },
  ];
  assert.deepEqual(await c.rankTop('{t}:tie', 10, { shared: true }), shared);
  assert.deepEqual(await c.rankTop('{t}:tie', 10, { shared: false }), shared.map((entry, i) => ({ ...entry, rank: i + 1 })));
  assert.deepEqual(await c.rankTop('{t}:tie', 5, { offset: 2, shared: true }), shared.slice(2));
  assert.deepEqual(await c.rankAround('{t}:tie', 'c', 1, { shared: true }), shared.slice(2));
  assert.deepEqual(await c.rankAround('{t}:tie', 'c', 1), [{ rank: 3, member: 'd', total: 100 }, { rank: 4, member: 'c', total: 99 }]);
  assert.deepEqual(await c.rankGet('{t}:tie', 'd', { shared: true }), { total: 100, rank: 1, reachedAtMs: 1718000002000 });
  assert.deepEqual(await c.rankGet('{t}:tie', 'd'), { total: 100, rank: 3, reachedAtMs: 1718000002000 });

  // GT keeps the best total, LT the lowest; an unchanged total keeps its reached-at.
  assert.deepEqual(await c.rankSet('{t}:tie', 'c', 98, { gt: true, at: 1718000003000 }), { total: 99, rank: 4 });
  assert.deepEqual(await c.rankGet('{t}:tie', 'c'), { total: 99, rank: 4, reachedAtMs: 1718000001500 });
  assert.deepEqual(await c.rankSet('{t}:tie', 'c', 150, { gt: true, shared: true, at: 1718000004000 }), { total: 150, rank: 1 });
  assert.deepEqual(await c.rankSet('{t}:tie', 'c', 160, { lt: true }), { total: 150, rank: 1 });
  assert.deepEqual(await c.rankSet('{t}:tie', 'c', 100, { lt: true, shared: true, at: 1718000005000 }), { total: 100, rank: 1 });
  assert.deepEqual(await c.rankGet('{t}:tie', 'c'), { total: 100, rank: 4, reachedAtMs: 1718000005000 });
  assert.deepEqual(await c.rankSet('{t}:tie', 'new', 7, { gt: true, at: 1718000005000 }), { total: 7, rank: 5 }); // absent: added

  // MGIFT: one gift on several boards, one { total, rank } per board; MGET: several members.
  assert.deepEqual(await c.rankMgift(['{t}:day', '{t}:tie'], 'b', 50, { at: 1718000006000 }), [
    { total: 50, rank: 1 },
    { total: 150, rank: 1 },
  ]);
  assert.deepEqual(await c.rankMgift(['{t}:tie', '{t}:day'], 'e', 150, { at: 1718000007000, shared: true }), [
    { total: 150, rank: 1 },
    { total: 150, rank: 1 },
  ]);
  assert.deepEqual(await c.rankMgift(['{t}:day'], 'f', 150, { at: 1718000008000 }), [{ total: 150, rank: 2 }]);
  assert.deepEqual(await c.rankMget('{t}:tie', ['e', 'nobody', 'b'], { shared: true }), [
    { total: 150, rank: 1, reachedAtMs: 1718000007000 },
    null,
    { total: 150, rank: 1, reachedAtMs: 1718000006000 },
  ]);
  assert.deepEqual(await c.rankMget('{t}:tie', 'e'), [{ total: 150, rank: 2, reachedAtMs: 1718000007000 }]);
  assert.deepEqual(await c.rankMget('{t}:nobody', ['a', 'b']), [null, null]);
  // STATS: totals 7, 100, 100, 100, 150, 150; p50 is the 3rd lowest (nearest rank).
  const board = await c.rankStats('{t}:tie');
  assert.deepEqual({ ...board, memoryBytes: undefined }, {
    members: 6, topTotal: 150, p99Total: 150, p90Total: 150, p50Total: 100, bottomTotal: 7, memoryBytes: undefined,
  });
  assert.ok(board.memoryBytes > 0);
  assert.deepEqual(await c.rankStats('{t}:noboard'), {
    members: 0, topTotal: null, p99Total: null, p90Total: null, p50Total: null, bottomTotal: null, memoryBytes: 0,
  });

  const items = [{ score: 1, member: 'item:1' }, { score: 2, member: 'item:2' }, { score: 3.5, member: 'item:3' }];
  assert.equal(await c.feedAdd('{t}:feed', items, { cap: 2 }), 3);
  const first = await c.feedPage('{t}:feed', { count: 1 });
  assert.deepEqual(first.items, [{ member: 'item:3', score: 3.5 }]);
  assert.equal(first.more, true);
  const older = await c.feedPage('{t}:feed', { count: 5, older: first.bottom });
  assert.deepEqual([older.items, older.more], [[{ member: 'item:2', score: 2 }], false]);
  const newer = await c.feedPage('{t}:feed', { newer: older.top });
  assert.deepEqual(newer.items, [{ member: 'item:3', score: 3.5 }]);
  assert.deepEqual(await c.feedPage('{t}:nofeed'), { items: [], top: null, bottom: null, more: false });

  await native.zadd('{t}:jobs', 1000, 'mail:1', 2000, 'mail:2', 3000, 'mail:3');
  const lease = { key: '{t}:jobs:inflight', ms: 60000 };
  assert.deepEqual(await c.delayPoll('{t}:jobs', { count: 2, lease }), [
    { task: 'mail:1', dueMs: 1000 },
    { task: 'mail:2', dueMs: 2000 },
  ]);
  assert.deepEqual(await c.delayBpoll('{t}:jobs', 100, { lease }), [{ task: 'mail:3', dueMs: 3000 }]);
  assert.equal(await c.delayBpoll('{t}:jobs', 1), null);
  assert.deepEqual(await c.delayPoll('{t}:jobs'), []);
  assert.equal(await c.delayAck('{t}:jobs:inflight', ['mail:1', 'mail:2', 'mail:9']), 2);

  // NACK hands a held task back to its queue, due after the delay; TOUCH extends a lease.
  let before = Date.now();
  assert.equal(await c.delayNack('{t}:jobs:inflight', '{t}:jobs', 'mail:3', 30000), true);
  let due = Number(await native.zscore('{t}:jobs', 'mail:3'));
  assert.ok(due >= before + 30000 && due <= Date.now() + 30000, `due ${due}`);
  assert.equal(await native.zscore('{t}:jobs:inflight', 'mail:3'), null);
  assert.equal(await c.delayNack('{t}:jobs:inflight', '{t}:jobs', 'mail:3', 0), false); // no longer in flight
  await native.zadd('{t}:jobs:inflight', Date.now() + 1000, 'mail:4', 1, 'mail:5');
  before = Date.now();
  assert.equal(await c.delayTouch('{t}:jobs:inflight', 'mail:4', 120000), true);
  due = Number(await native.zscore('{t}:jobs:inflight', 'mail:4'));
  assert.ok(due >= before + 120000 && due <= Date.now() + 120000, `lease end ${due}`);
  assert.equal(await c.delayTouch('{t}:jobs:inflight', 'mail:5', 120000), false); // its lease had ended
  assert.equal(Number(await native.zscore('{t}:jobs:inflight', 'mail:5')), 1);
  assert.equal(await c.delayNack('{t}:jobs:inflight', '{t}:jobs:inflight', 'mail:4', 0), true); // due now, in place
  assert.ok(Number(await native.zscore('{t}:jobs:inflight', 'mail:4')) <= Date.now());

  // Dead letters: with at most 2 deliveries, the third due delivery moves the task to the dead set.
  await native.zadd('{t}:dl', 1000, 'poison', 2000, 'fine');
  const short = { lease: { key: '{t}:dl:inflight', ms: 1 }, deadLetter: { dead: '{t}:dead', deliveries: '{t}:deliveries', maxDeliveries: 2 } };
  assert.deepEqual(await c.delayPoll('{t}:dl', { count: 2, ...short }), [{ task: 'poison', dueMs: 1000 }, { task: 'fine', dueMs: 2000 }]);
  assert.deepEqual([Number(await native.zscore('{t}:deliveries', 'poison')), Number(await native.zscore('{t}:deliveries', 'fine'))], [1, 1]);
  await sleep(5);
  assert.deepEqual((await c.delayPoll('{t}:dl:inflight', short)).map((task) => task.task), ['fine']); // a lease of 1 ms ended
  assert.equal(await c.delayAck('{t}:dl:inflight', 'fine', { deliveries: '{t}:deliveries' }), 1); // count removed
  assert.equal(await native.zscore('{t}:deliveries', 'fine'), null);
  assert.deepEqual((await c.delayBpoll('{t}:dl:inflight', 100, short)).map((task) => task.task), ['poison']);
  assert.equal(Number(await native.zscore('{t}:deliveries', 'poison')), 2);
  await sleep(5);
  before = Date.now();
  assert.equal(await c.delayBpoll('{t}:dl:inflight', 1, short), null); // a dead task is moved, not delivered
  assert.deepEqual(await native.zrange('{t}:dead', 0, -1), ['poison']);
  const died = Number(await native.zscore('{t}:dead', 'poison'));
  assert.ok(died >= before - 1 && died <= Date.now(), `died at ${died}`);
  assert.equal(await native.zscore('{t}:deliveries', 'poison'), null); // a dead task's count goes
  assert.deepEqual(await native.zrange('{t}:dl:inflight', 0, -1), []);
  const sets = { inflight: '{t}:dl:inflight', dead: '{t}:dead', deliveries: '{t}:deliveries' };
  const dl = await c.delayStats('{t}:dl', sets);
  assert.deepEqual({ ...dl, nowMs: 0 }, { nowMs: 0, tasks: 0, due: 0, oldestDueAgeMs: 0, nextDueMs: null, inflight: 0, expired: 0, dead: 1, redelivered: 0 });
  assert.ok(dl.nowMs >= before);
  const jobs = await c.delayStats('{t}:jobs'); // mail:3, handed back 30 s ahead
  assert.deepEqual([jobs.tasks, jobs.due, jobs.nextDueMs, jobs.dead], [1, 0, Number(await native.zscore('{t}:jobs', 'mail:3')), null]);

  assert.deepEqual(await c.rateHit('{t}:rate', 60000, 2, { cost: 2 }), { allowed: true, count: 2, remaining: 0, retryAfterMs: -1 });
  const refused = await c.rateHit('{t}:rate', 60000, 2);
  assert.equal(refused.allowed, false);
  assert.ok(refused.retryAfterMs > 0 && refused.retryAfterMs <= 60000);
  assert.equal(refused.binding, undefined); // one limit: four fields, as before

  // Several limits: allowed only if every limit allows; `binding` names the limit the other fields describe.
  const limits = [{ windowMs: 10000, limit: 5 }, { windowMs: 86400000, limit: 3 }];
  assert.deepEqual(await c.rateHit('{t}:rates', limits), { allowed: true, count: 1, remaining: 2, retryAfterMs: -1, binding: 2 });
  assert.deepEqual(await c.rateHit('{t}:rates', limits, { cost: 2 }), { allowed: true, count: 3, remaining: 0, retryAfterMs: -1, binding: 2 });
  assert.deepEqual(await c.rateHit('{t}:rates', [limits[0], { windowMs: 86400000, limit: 100 }]), {
    allowed: true, count: 4, remaining: 1, retryAfterMs: -1, binding: 1,
  });
  const daily = await c.rateHit('{t}:rates', limits);
  assert.deepEqual([daily.allowed, daily.count, daily.remaining, daily.binding], [false, 4, 0, 2]);
  assert.ok(daily.retryAfterMs > 86000000 && daily.retryAfterMs <= 86400000, `retry after ${daily.retryAfterMs}`);
  assert.equal(await native.zcard('{t}:rates'), 4); // a refused hit logs nothing
  assert.deepEqual(await c.rateHit('{t}:rates', [{ windowMs: 10000, limit: 5 }]), { allowed: true, count: 5, remaining: 0, retryAfterMs: -1 });
  const log = await c.rateStats('{t}:rates', [10000, 86400000]);
  assert.deepEqual([log.entries, log.windows], [5, [{ windowMs: 10000, entries: 5 }, { windowMs: 86400000, entries: 5 }]]);
  assert.ok(log.newestMs >= before);

  assert.equal(await c.recentAdd('{t}:recent', ['3002', '3001', '3004'], { cap: 2, ttl: 60 }), 2);
  assert.deepEqual(await native.zrevrange('{t}:recent', 0, -1), ['3004', '3001']);

  await native.zadd('{t}:time', POSTED_AT, '100408');
  const keys = ['{t}:score', '{t}:up:100408', '{t}:down:100408'];
  const weight = { up: 432, down: 432 };
  const window = { key: '{t}:time', seconds: 1e10 };
  assert.deepEqual(await c.voteCast(...keys, '100408', 'user:1', 'UP', { weight, window }), { score: 432, ups: 1, downs: 0, changed: true });
  assert.deepEqual(await c.voteCast(...keys, '100408', 'user:1', 'DOWN', { weight }), { score: -432, ups: 0, downs: 1, changed: true });
  assert.deepEqual(await c.voteCast(...keys, '100408', 'user:1', 'DOWN', { weight }), { score: -432, ups: 0, downs: 1, changed: false });
  assert.equal(await c.voteState(keys[1], keys[2], 'user:1'), -1);
  return called;
}

/** ioredis-style ZADD, ZREM, ZREVRANGE, ZRANGE, ZSCORE and ZCARD over a node-redis client. */
export const nodeRedisNative = (client) => ({
  zadd: (key, ...scoreMembers) => {
    const members = [];
    for (let i = 0; i < scoreMembers.length; i += 2) members.push({ score: scoreMembers[i], value: scoreMembers[i + 1] });
    return client.zAdd(key, members);
  },
  zrem: (key, member) => client.zRem(key, member),
  zrevrange: (key, start, stop) => client.zRange(key, start, stop, { REV: true }),
  zrange: (key, start, stop) => client.zRange(key, start, stop),
  zscore: (key, member) => client.zScore(key, member),
  zcard: (key) => client.zCard(key),
});
