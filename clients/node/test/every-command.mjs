// One call or more of every zkit command through a zkit wrapper (or a
// node-redis client's `zkit` module namespace), checking every reply.
import assert from 'node:assert/strict';
import { ENGINE } from './helpers.mjs';

const POSTED_AT = 1795313748;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs every command on `z` (its methods), with `native` for plain sorted-set commands; returns the method names called. */
export async function everyCommand(z, native) {
  const called = new Set();
  const c = new Proxy(z, { get: (target, name) => (called.add(name), target[name].bind(target)) });

  assert.deepEqual(await c.rankGift('{t}:mon', 'alice', 100, { at: 1718000000000 }), { total: 100, rank: 1 });
  assert.deepEqual(await c.rankGift('{t}:mon', 'bob', 50), { total: 50, rank: 2 });
  // TTL: the board expires a day after this write.
  assert.deepEqual(await c.rankGift('{t}:day', 'bob', 50, { ttl: 86400 }), { total: 50, rank: 1 });
  const dayTtl = await native.ttl('{t}:day');
  assert.ok(dayTtl > 86000 && dayTtl <= 86400, String(dayTtl));
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
  // DATA: member data beside the board, set with the score, read with the rank.
  assert.deepEqual(await c.rankGift('{t}:game', 'ann', 3, { data: { dataKey: '{t}:profiles', data: 'Ann|fr' } }), { total: 3, rank: 1 });
  assert.deepEqual(await c.rankTop('{t}:game', 5, { data: '{t}:profiles' }), [{ rank: 1, member: 'ann', total: 3, data: 'Ann|fr' }]);
  assert.equal((await c.rankGet('{t}:game', 'ann', { data: '{t}:profiles' })).data, 'Ann|fr');
  assert.equal(await c.rankRemove('{t}:game', ['ann'], { data: '{t}:profiles' }), 1);

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
  for (const [member, total] of [['a', 1], ['b', 2], ['c', 3], ['d', 4]]) await c.rankGift('{t}:pct', member, total);
  assert.deepEqual([await c.rankPercentile('{t}:pct', 'd'), await c.rankPercentile('{t}:pct', 'a'), await c.rankPercentile('{t}:pct', 'nobody')], [75, 0, null]);
  assert.deepEqual([await c.rankQuantile('{t}:pct', 50), await c.rankQuantile('{t}:pct', 87.5), await c.rankQuantile('{t}:pct', '100')], [2.5, 3.625, 4]);
  assert.equal(await c.rankQuantile('{t}:noboard', 50), null);
  assert.deepEqual([await c.rankCount('{t}:pct', 2, '+inf'), await c.rankCount('{t}:pct', '(2', '+inf'), await c.rankCount('{t}:pct', '-inf', '(2')], [3, 2, 1]);
  // e reaches 3 at a time given before c's (the server's now): d 4, e 3, c 3, b 2, a 1.
  await c.rankGift('{t}:pct', 'e', 3, { at: 1718000000000 });
  assert.deepEqual(await c.rankRange('{t}:pct', 3, '(1'), [
    { rank: 2, member: 'e', total: 3 }, { rank: 3, member: 'c', total: 3 }, { rank: 4, member: 'b', total: 2 },
  ]);
  assert.deepEqual(await c.rankRange('{t}:pct', '+inf', '-inf', { limit: { offset: 2, count: 1 }, shared: true }), [{ rank: 2, member: 'c', total: 3 }]);
  assert.deepEqual(await c.rankRange('{t}:noboard', '+inf', '-inf'), []);
  assert.deepEqual(await c.rankAmong('{t}:pct', ['c', 'a', 'nobody', 'e'], { shared: true }), [
    { rank: 1, member: 'e', total: 3 }, { rank: 1, member: 'c', total: 3 }, { rank: 3, member: 'a', total: 1 },
  ]);
  assert.deepEqual(await c.rankAmong('{t}:pct', 'c'), [{ rank: 1, member: 'c', total: 3 }]);
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
  assert.deepEqual({ ...dl, nowMs: 0 }, { nowMs: 0, tasks: 0, due: 0, oldestDueAgeMs: 0, nextDueMs: null, inflight: 0, expired: 0, dead: 1, redelivered: 0, paused: null, cappedGroups: null });
  assert.ok(dl.nowMs >= before);
  const jobs = await c.delayStats('{t}:jobs'); // mail:3, handed back 30 s ahead
  assert.deepEqual([jobs.tasks, jobs.due, jobs.nextDueMs, jobs.dead], [1, 0, Number(await native.zscore('{t}:jobs', 'mail:3')), null]);

  // Fenced leases: each delivery's token; a stale token's calls change nothing.
  await native.zadd('{t}:fenced', 1000, 'mail:6');
  const fencedLease = { key: '{t}:fenced:inflight', ms: 60000 };
  const [fenced] = await c.delayPoll('{t}:fenced', { lease: fencedLease, withTokens: true });
  assert.deepEqual(fenced, { task: 'mail:6', dueMs: 1000, token: Number(await native.zscore('{t}:fenced:inflight', 'mail:6')) });
  const renewed = await c.delayTouch('{t}:fenced:inflight', 'mail:6', 120000, { token: fenced.token });
  assert.ok(typeof renewed === 'number' && renewed > fenced.token, `renewed to ${renewed}`);
  assert.equal(await c.delayTouch('{t}:fenced:inflight', 'mail:6', 120000, { token: fenced.token }), 0);
  assert.equal(await c.delayNack('{t}:fenced:inflight', '{t}:fenced', 'mail:6', 0, { token: fenced.token }), false);
  assert.equal(await c.delayAck('{t}:fenced:inflight', { leases: [fenced] }), 0);
  assert.equal(Number(await native.zscore('{t}:fenced:inflight', 'mail:6')), renewed);
  assert.equal(await c.delayNack('{t}:fenced:inflight', '{t}:fenced', 'mail:6', 0, { token: renewed }), true);
  const [again] = await c.delayBpoll('{t}:fenced', 100, { lease: fencedLease, withTokens: true });
  assert.equal(again.token, Number(await native.zscore('{t}:fenced:inflight', 'mail:6')));
  assert.equal(await c.delayAck('{t}:fenced:inflight', { leases: [{ task: again.task, token: again.token }], deliveries: '{t}:deliveries' }), 1);
  assert.equal(await native.zcard('{t}:fenced:inflight'), 0);

  // Jobs: tasks that carry their data, in the hash beside the queue.
  const [q, held, data, dead, counts] = ['{t}:q', '{t}:q:inflight', '{t}:q:data', '{t}:q:dead', '{t}:q:deliveries'];
  const jobLease = { key: held, ms: 60000 };
  const added = [{ dueMs: 0, task: 'mail:17', payload: 'to=ann' }, { dueMs: 0, task: 'mail:18', payload: 'to=bob' }];
  assert.deepEqual(await c.delayAdd(q, { data, jobs: added }), [1, 1]);
  assert.deepEqual(await c.delayAdd(q, { data, keep: true, jobs: [{ dueMs: 0, task: 'mail:17', payload: 'to=cat' }] }), [0]);
  assert.equal(await native.hget(data, 'p:mail:17'), 'to=ann');
  const beforeMs = Date.now();
  const replaced = await c.delayAdd(q, { data, inflight: held, replace: true, within: 3600000, jobs: [{ dueMs: 0, task: 'mail:18', payload: 'to=dan' }] });
  const afterMs = Date.now();
  assert.deepEqual([replaced, await native.hget(data, 'p:mail:18')], [[2], 'to=dan']);
  // Its not-started-by deadline, counted from now (a due time past is now).
  const deadlineMs = Number(await native.hget(data, 'x:mail:18'));
  assert.ok(beforeMs + 3600000 <= deadlineMs && deadlineMs <= afterMs + 3600000, `${deadlineMs}`);
  assert.deepEqual(await c.delayAdd(q, [{ dueMs: 4102444800000, task: 'report:1' }]), [1]);
  assert.deepEqual(await c.delayAdd(q, [{ dueMs: 4102444800001, task: 'report:1' }], { extend: true }), [2]);
  assert.deepEqual(await c.delayAdd(q, [{ dueMs: 4102444700000, task: 'report:1' }], { extend: true }), [0]); // only later
  assert.equal(Number(await native.zscore(q, 'report:1')), 4102444800001);
  assert.equal(await c.delayPause(q, data), true);
  assert.equal(await c.delayPause(q, data), false);
  assert.equal((await c.delayStats(q, { data })).paused, true);
  assert.deepEqual(await c.delayPoll(q, { lease: jobLease, data, withData: true }), []);
  assert.equal(await c.delayResume(q, data), true);
  assert.equal(await c.delayResume(q, data), false);
  assert.equal((await c.delayStats(q, { data })).paused, false);
  const lastTry = { dead, deliveries: counts, maxDeliveries: 1 };
  const claimed = await c.delayPoll(q, { count: 3, lease: jobLease, deadLetter: lastTry, data, withData: true, worker: 'worker-1' });
  assert.deepEqual(claimed.map(({ task, payload, deliveries }) => [task, payload, deliveries]), [['mail:17', 'to=ann', 1], ['mail:18', 'to=dan', 1]]);
  assert.equal(claimed[0].token, Number(await native.zscore(held, 'mail:17')));
  assert.equal(await native.hget(data, 'w:mail:17'), 'worker-1');
  const names = { inflight: held, dead, deliveries: counts, data };
  assert.deepEqual(await c.delayJob(q, 'mail:17', names), {
    state: 'inflight', score: claimed[0].token, payload: 'to=ann', deliveries: 1, lastReason: null, deadlineMs: null, worker: 'worker-1',
  });
  // mail:18 fails: handed back with its reason; delivered once already, the next poll buries it.
  assert.equal(await c.delayNack(held, q, 'mail:18', 0, { token: claimed[1].token, data, reason: 'SMTP 451' }), true);
  assert.deepEqual([await native.hget(data, 'r:mail:18'), await native.hget(data, 'w:mail:18')], ['SMTP 451', null]);
  assert.equal(await c.delayBpoll(q, 100, { lease: jobLease, deadLetter: lastTry, data, withData: true }), null);
  assert.deepEqual(await c.delayJob(q, 'mail:18', names), {
    state: 'dead', score: Number(await native.zscore(dead, 'mail:18')), payload: 'to=dan', deliveries: 1, lastReason: 'SMTP 451', deadlineMs: null, worker: null,
  });
  assert.equal(await c.delayRetry(dead, q, ['mail:18', 'nobody'], { data }), 1);
  const [retried] = await c.delayBpoll(q, 1000, { lease: jobLease, data, withData: true });
  assert.deepEqual([retried.task, retried.payload, retried.deliveries, retried.token], ['mail:18', 'to=dan', null, Number(await native.zscore(held, 'mail:18'))]);
  assert.equal(await c.delayAck(held, { leases: [claimed[0], retried], deliveries: counts, data }), 2);
  assert.equal(await native.exists(held, counts, data), 0); // payloads, reasons and holders went with them
  // Polled without a lease, a job is done: its data goes with it.
  assert.deepEqual(await c.delayAdd(q, { data, jobs: [{ dueMs: 0, task: 'mail:19', payload: 'to=eve' }] }), [1]);
  const [done] = await c.delayPoll(q, { data, withData: true });
  assert.deepEqual([done.task, done.token, done.payload, done.deliveries], ['mail:19', null, 'to=eve', null]);
  assert.equal(await native.exists(data), 0);
  assert.deepEqual(await native.zrange(q, 0, -1), ['report:1']);

  // Priority lanes: the first queue's due task first, then the next's.
  assert.deepEqual(await c.delayAdd('{t}:low', [{ dueMs: 0, task: 'low:1' }]), [1]);
  assert.deepEqual(await c.delayAdd('{t}:high', [{ dueMs: 0, task: 'high:1' }]), [1]);
  assert.deepEqual((await c.delayPoll('{t}:high', { count: 5, lanes: ['{t}:low'] })).map((task) => task.task), ['high:1', 'low:1']);
  assert.equal(await c.delayBpoll('{t}:high', 1, { lanes: ['{t}:low'] }), null);
  // Groups: acme's cap holds, the other tenant is still served.
  const tenants = '{t}:tenants';
  const tenantData = '{t}:tenants:data';
  assert.equal(await c.delayGroup(tenants, tenantData, 'acme', { cap: 1, rate: { windowMs: 60000, limit: 10 } }), true);
  assert.deepEqual(await c.delayAdd(tenants, { data: tenantData, group: 'acme', jobs: [{ dueMs: 0, task: 'a:1', payload: 'x' }, { dueMs: 0, task: 'a:2', payload: 'x' }] }), [1, 1]);
  assert.deepEqual(await c.delayAdd(tenants, [{ dueMs: 0, task: 'z:1' }], { data: tenantData, group: 'zeta' }), [1]);
  const tenantLease = { key: '{t}:tenants:inflight', ms: 60000 };
  assert.deepEqual((await c.delayPoll(tenants, { count: 5, lease: tenantLease, data: tenantData })).map((task) => task.task).sort(), ['a:1', 'z:1']);
  const [acme] = await c.delayGroups(tenants, tenantData);
  assert.deepEqual(acme, { group: 'acme', inflight: 1, cap: 1, rateLimit: 10, windowMs: 60000, capped: true, rateLimited: false });
  assert.equal((await c.delayStats(tenants, { data: tenantData })).cappedGroups, 1);
  // Rate-limited claims: one per minute across workers.
  const rate = { log: '{t}:rated:log', windowMs: 60000, limit: 1 };
  assert.deepEqual(await c.delayAdd('{t}:rated', { data: tenantData, jobs: [{ dueMs: 0, task: 'r:1', payload: 'x' }, { dueMs: 0, task: 'r:2', payload: 'y' }] }), [1, 1]);
  const ratedJobs = await c.delayPoll('{t}:rated', { data: tenantData, withData: true, rate });
  assert.deepEqual([ratedJobs.jobs.map((job) => job.payload), ratedJobs.retryAfterMs], [['x'], -1]);
  const limited = await c.delayPoll('{t}:rated', { rate });
  assert.deepEqual(limited.tasks, []);
  assert.ok(limited.retryAfterMs > 0 && limited.retryAfterMs <= 60000);
  // Repeating jobs: listed by id, changed, cancelled.
  const beats = '{t}:beats';
  const beatData = '{t}:beats:data';
  // On both engines: the library reads cron rules in a time zone as the module does.
  assert.equal(await c.delaySchedule(beats, beatData, 'beat', 60000, { start: 4102444800000, payload: 'p' }), 4102444800000);
  assert.ok((await c.delaySchedule(beats, beatData, 'daily', { cron: '0 9 * * *', tz: 'Europe/Paris' })) > 1718000000000);
  const rows = await c.delaySchedules(beats, beatData);
  assert.deepEqual(rows.map((row) => [row.id, row.everyMs, row.cron, row.tz, row.payload]), [['beat', 60000, null, null, 'p'], ['daily', null, '0 9 * * *', 'Europe/Paris', null]]);
  // Each pending occurrence is a task <id>@<unix-ms> in the queue.
  assert.deepEqual(await native.zrange(beats, 0, -1), [`daily@${rows[1].nextMs}`, 'beat@4102444800000']);
  assert.equal(await c.delayUnschedule(beats, beatData, 'beat'), true);
  assert.equal(await c.delayUnschedule(beats, beatData, 'beat'), false);

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
  // A peek answers what the hit would and logs nothing; a cost above the limit is refused with -1 (it never
  // fits); a negative cost gives units back.
  assert.deepEqual(await c.ratePeek('{t}:rate5', 60000, 3, { cost: 2 }), { allowed: true, count: 2, remaining: 1, retryAfterMs: -1 });
  assert.equal(await native.zcard('{t}:rate5'), 0);
  assert.deepEqual(await c.ratePeek('{t}:rate5', [{ windowMs: 60000, limit: 3 }, { windowMs: 1000, limit: 1 }], { cost: 2 }), {
    allowed: false, count: 0, remaining: 1, retryAfterMs: -1, binding: 2,
  });
  assert.deepEqual(await c.rateHit('{t}:rate5', 60000, 3, { cost: 2 }), { allowed: true, count: 2, remaining: 1, retryAfterMs: -1 });
  assert.deepEqual(await c.rateHit('{t}:rate5', 60000, 3, { cost: -1 }), { allowed: true, count: 1, remaining: 2, retryAfterMs: -1 });
  assert.deepEqual(await c.rateHit('{t}:rate5', 60000, 3, { cost: 4 }), { allowed: false, count: 1, remaining: 2, retryAfterMs: -1 });
  // At most one at once: the second holder waits for the lease; a token that is not the lease's frees nothing.
  const slot = await c.rateAcquire('{t}:busy', 'req:1', 60000, 1);
  assert.deepEqual({ ...slot, token: 0 }, { acquired: true, held: 1, remaining: 0, retryAfterMs: -1, token: 0 });
  assert.ok(slot.token >= before + 60000, `token ${slot.token}`);
  const waiting = await c.rateAcquire('{t}:busy', 'req:2', 60000, 1);
  assert.deepEqual([waiting.acquired, waiting.held, waiting.token], [false, 1, -1]);
  assert.ok(waiting.retryAfterMs > 0 && waiting.retryAfterMs <= 60000, `retry after ${waiting.retryAfterMs}`);
  assert.equal(await c.rateRelease('{t}:busy', 'req:1', { token: slot.token - 1 }), false);
  assert.equal(await c.rateRelease('{t}:busy', 'req:1', { token: slot.token }), true);
  assert.equal(await c.rateRelease('{t}:busy', 'req:1'), false);

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

/** ioredis-style ZADD, ZREM, ZREVRANGE, ZRANGE, ZSCORE, ZCARD, HGET and EXISTS over a node-redis client. */
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
  hget: (key, field) => client.hGet(key, field),
  exists: (...keys) => client.exists(keys),
  ttl: (key) => client.ttl(key),
});
