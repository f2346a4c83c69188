// DelayWorker drains 1,000 tasks with 4 worker processes while one is killed
// and every worker's connection is dropped: every task runs, none is lost,
// no two workers ever hold the same task at once, and the rest stop cleanly.
// With retryDelayMs and deadLetter, a failed task comes back after the delay
// and a task that always fails ends in the dead-letter set; with
// renewLeases, handlers outlast their leases. Every ack, hand-back and
// renewal carries the delivery's token: a worker whose task another worker
// claimed after its lease ended leaves that worker's delivery as it is.
// With concurrency, a batch's handlers run at once.
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { beforeEach, test } from 'node:test';
import Redis from 'ioredis';
import { DelayWorker, keySlot, REASON_MAX_CHARS, zkit } from 'zkit';
import * as h from './helpers.mjs';

const TASKS = 1000;
const WORKERS = 4;
beforeEach(h.newPrefix);

/** A plain connection to the server that holds {jobs}. */
async function jobsServer(topology) {
  const keyPrefix = h.currentPrefix();
  if (topology === 'single') return new Redis({ ...h.SERVER, keyPrefix });
  const cluster = h.ioredisCluster();
  await cluster.ping(); // loads the slot table
  const [host, port] = cluster.slots[keySlot('{jobs}')][0].split(':');
  await cluster.quit();
  return new Redis({ host, port: Number(port), keyPrefix });
}

async function waitFor(condition, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (const topology of ['single', 'cluster']) {
  test(`${topology}: 4 workers drain 1,000 tasks while one is killed`, async () => {
    const r = await jobsServer(topology);
    const workers = Array.from({ length: WORKERS }, (_, w) =>
      fork(new URL('./drain-worker.mjs', import.meta.url), [topology, String(w), h.currentPrefix()]));
    let exits;
    try {
      // Tasks come once every worker polls the queue: on a loaded machine
      // the first ones up could otherwise drain it alone, and the kill below
      // would find fewer connections than it drops.
      const connected = async () => {
        const list = await r.client('LIST');
        return Array.from({ length: WORKERS }, (_, w) => `name=drain-worker-${w} `).every((name) => list.includes(name));
      };
      await waitFor(connected, 60000, 'every worker connected');
      await r.zadd('{jobs}', ...Array.from({ length: TASKS }, (_, n) => [n, `task:${n}`]).flat());
      await waitFor(async () => (await r.llen('{jobs}:log')) >= 200, 60000, '200 tasks done');
      workers[0].kill('SIGKILL'); // dies holding leased tasks
      assert.ok((await r.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes')) >= 3); // drop the others' connections
      await waitFor(async () => (await r.scard('{jobs}:done')) === TASKS && (await r.zcard('{jobs}:inflight')) === 0, 60000, 'the drain');
    } finally {
      const exited = workers.slice(1).map((worker) => once(worker, 'exit'));
      workers.slice(1).forEach((worker) => worker.kill('SIGTERM'));
      exits = (await Promise.all(exited)).map(([code]) => code);
    }
    assert.deepEqual(exits, [0, 0, 0]); // stopped cleanly on request
    assert.equal(await r.zcard('{jobs}'), 0);

    const runs = new Map();
    for (const line of await r.lrange('{jobs}:log', 0, -1)) {
      const [task, worker, start, end] = line.split(' ');
      if (!runs.has(task)) runs.set(task, []);
      runs.get(task).push({ worker, start: Number(start), end: Number(end) });
    }
    assert.equal(runs.size, TASKS); // every task ran, none lost
    for (const [task, taskRuns] of runs) {
      for (const [i, a] of taskRuns.entries()) {
        for (const b of taskRuns.slice(i + 1)) {
          const overlap = a.start < b.end && b.start < a.end;
          assert.ok(!(overlap && a.worker !== b.worker), `${task} held by workers ${a.worker} and ${b.worker} at once`);
        }
      }
    }
    r.disconnect();
  });
}

test('concurrency: the handlers of a batch run at once, each task acked or handed back on its own', async () => {
  const r = await jobsServer('single');
  await r.zadd('{jobs}', 0, 't0', 1, 't1', 2, 't2', 3, 't3');
  const client = h.ioredisSingle();
  let started = 0;
  let allStarted;
  const together = new Promise((resolve) => {
    allStarted = resolve;
  });
  const worker = new DelayWorker(client, {
    queue: '{jobs}',
    inflight: '{jobs}:inflight',
    count: 4,
    concurrency: 4,
    blockMs: 50,
    retryDelayMs: 3_600_000,
    onError: () => {},
    handler: async ({ task }) => {
      if (++started === 4) allStarted();
      // Settles once all four run at once: one after the other, the first handler would give up.
      let timer;
      const alone = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('ran alone')), 30_000);
      });
      try {
        await Promise.race([together, alone]);
      } finally {
        clearTimeout(timer);
      }
      if (task === 't3') throw new Error('t3 failed');
    },
  });
  try {
    assert.equal(await worker.runOnce(), 3);
    assert.throws(() => new DelayWorker(client, { queue: '{jobs}', inflight: '{jobs}:inflight', concurrency: 0, handler: () => {} }),
      /concurrency must be an integer of at least 1/);
  } finally {
    await client.quit();
  }
  assert.deepEqual(await r.zrange('{jobs}', 0, -1), ['t3']); // handed back, due in an hour
  assert.equal(await r.exists('{jobs}:inflight'), 0);
  r.disconnect();
});

for (const topology of ['single', 'cluster']) {
  test(`${topology}: a failed task is handed back for retryDelayMs, a poison task dies after maxDeliveries`, async () => {
    const r = await jobsServer(topology);
    const now = Date.now();
    await r.zadd('{jobs}', now, 'poison', now + 1, 'flaky', now + 2, 'fine');
    const runs = { poison: [], flaky: [], fine: [] }; // when each run started
    const errors = [];
    const client = topology === 'cluster' ? await h.nodeRedisCluster() : h.ioredisSingle();
    const worker = new DelayWorker(client, {
      queue: '{jobs}',
      inflight: '{jobs}:inflight',
      leaseMs: 60000, // a task left in flight would not come back within this test
      blockMs: 50,
      retryDelayMs: 300,
      deadLetter: { dead: '{jobs}:dead', deliveries: '{jobs}:deliveries', maxDeliveries: 3 },
      onError: (error, task) => errors.push(`${task?.task}: ${error.message}`),
      handler: ({ task }) => {
        runs[task].push(Date.now());
        if (task === 'poison' || (task === 'flaky' && runs.flaky.length === 1)) throw new Error('failed');
      },
    });
    const running = worker.run();
    try {
      await waitFor(async () => (await r.zcard('{jobs}:dead')) === 1 && runs.flaky.length === 2 && runs.fine.length === 1, 10000, 'the poison task to die');
    } finally {
      worker.stop();
      await running;
      await (topology === 'cluster' ? client.close() : client.quit());
    }
    assert.deepEqual([runs.poison.length, runs.flaky.length, runs.fine.length], [3, 2, 1]);
    assert.deepEqual(errors, ['poison: failed', 'flaky: failed', 'poison: failed', 'poison: failed']);
    // Each retry ran no sooner than retryDelayMs after the failed run (the lease was 60 s).
    for (const starts of [runs.poison, runs.flaky]) {
      for (let i = 1; i < starts.length; i++) assert.ok(starts[i] - starts[i - 1] >= 300, `retried after ${starts[i] - starts[i - 1]} ms`);
    }
    assert.deepEqual(await r.zrange('{jobs}:dead', 0, -1), ['poison']);
    // A dead task's count goes when it dies, an acked task's with DELAY.ACK ... DELIVERIES.
    assert.deepEqual(await r.zrange('{jobs}:deliveries', 0, -1), []);
    assert.deepEqual([await r.zcard('{jobs}'), await r.zcard('{jobs}:inflight')], [0, 0]);
    r.disconnect();
  });
}

for (const topology of ['single', 'cluster']) {
  test(`${topology}: renewLeases holds a batch longer than leaseMs, and gives up a task whose lease is gone`, async () => {
    const r = await jobsServer(topology);
    const now = Date.now();
    await r.zadd('{jobs}', now, 'long:1', now + 1, 'long:2', now + 2, 'taken');
    const leftAfterRun = {}; // ms of lease left when each handler ended
    const errors = [];
    let finished = 0;
    const client = topology === 'cluster' ? await h.nodeRedisCluster() : h.ioredisSingle();
    const worker = new DelayWorker(client, {
      queue: '{jobs}',
      inflight: '{jobs}:inflight',
      leaseMs: 600, // renewed every 200 ms: a loaded machine may pause a renewal that long, not a lease's
      blockMs: 50,
      renewLeases: true,
      onError: (error, task) => errors.push(`${task?.task}: ${error.message}`),
      handler: async ({ task }) => {
        if (task === 'taken') await r.zrem('{jobs}:inflight', 'taken'); // as if another worker had finished it
        await new Promise((resolve) => setTimeout(resolve, 1500)); // more than two leases
        leftAfterRun[task] = (await r.zscore('{jobs}:inflight', task)) - Date.now();
        finished++;
      },
    });
    const running = worker.run();
    try {
      await waitFor(async () => finished === 3, 10000, 'three handlers');
    } finally {
      worker.stop();
      await running;
      await (topology === 'cluster' ? client.close() : client.quit());
    }
    // long:2 waited 1500 ms for long:1 and then ran 1500 ms: its lease was renewed all along.
    for (const task of ['long:1', 'long:2']) assert.ok(leftAfterRun[task] > 0 && leftAfterRun[task] <= 600, `${task}: ${leftAfterRun[task]} ms left`);
    assert.deepEqual(errors, ['taken: task taken lost its lease (it ended, or another worker claimed it); not acked']);
    assert.deepEqual([await r.zcard('{jobs}'), await r.zcard('{jobs}:inflight')], [0, 0]); // both long tasks acked
    r.disconnect();
  });
}

/**
 * One task, 'report', due in {jobs}: `scenario` gets a plain connection to its server (`r`), the errors the workers
 * told (`errors`) and `worker(options)`, a DelayWorker of {jobs} on a client of `topology`.
 */
async function withReport(topology, scenario) {
  const r = await jobsServer(topology);
  await r.zadd('{jobs}', 1, 'report');
  const client = topology === 'cluster' ? await h.nodeRedisCluster() : h.ioredisSingle();
  const errors = [];
  const worker = (options) =>
    new DelayWorker(client, { queue: '{jobs}', inflight: '{jobs}:inflight', blockMs: 50, onError: (error, task) => errors.push(`${task?.task}: ${error.message}`), ...options });
  try {
    await scenario({ r, errors, worker });
  } finally {
    await (topology === 'cluster' ? client.close() : client.quit());
    r.disconnect();
  }
}

/** Runs `worker` once at a time until `condition()`; resolves to how many tasks it acked. */
async function runUntil(worker, condition, what) {
  let acked = 0;
  for (const deadline = Date.now() + 10000; !condition(); ) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    acked += await worker.runOnce();
  }
  return acked;
}

/** While a handler runs, its lease ends (a stalled worker's, made to end at once here) and another worker claims the task: its token. */
async function takeOver(r, task) {
  await r.zadd('{jobs}:inflight', 1, task); // the lease ended long ago
  // A lease of another length: claimed in the same ms as the first, a lease as long would end when the first did, under the same token.
  await zkit(r).delayPoll('{jobs}:inflight', { lease: { key: '{jobs}:inflight', ms: 120000 } });
  return r.zscore('{jobs}:inflight', task);
}

for (const topology of ['single', 'cluster']) {
  for (const fails of [false, true]) {
    test(`${topology}: a worker whose task another worker claimed leaves that delivery as it is (${fails ? 'hand-back' : 'ack'})`, () =>
      withReport(topology, async ({ r, errors, worker }) => {
        let taken;
        const handler = async ({ task }) => {
          taken = await takeOver(r, task);
          if (fails) throw new Error('failed after losing its lease');
        };
        assert.equal(await runUntil(worker({ leaseMs: 60000, retryDelayMs: 0, handler }), () => taken !== undefined, 'the take-over'), 0);
        assert.deepEqual(await r.zrange('{jobs}:inflight', 0, -1, 'WITHSCORES'), ['report', taken]);
        assert.equal(await r.zcard('{jobs}'), 0);
        assert.deepEqual(errors, fails
          ? ['report: failed after losing its lease', 'report: task report outran its lease; not handed back, it runs again when delivered again']
          : ['report: task report outran its lease and another worker claimed it; not acked']);
      }));
  }

  test(`${topology}: renewLeases drops a task another worker claimed, and leaves that delivery as it is`, () =>
    withReport(topology, async ({ r, errors, worker }) => {
      let taken;
      const handler = async ({ task }) => {
        taken = await takeOver(r, task);
        // Until a renewal (every 100 ms) has found the lease gone, or long past that.
        for (const until = Date.now() + 10000; !errors.length && Date.now() < until; ) await new Promise((resolve) => setTimeout(resolve, 20));
      };
      assert.equal(await runUntil(worker({ leaseMs: 300, renewLeases: true, handler }), () => taken !== undefined, 'the take-over'), 0);
      assert.deepEqual(errors, ['report: task report lost its lease (it ended, or another worker claimed it); not acked']);
      assert.deepEqual(await r.zrange('{jobs}:inflight', 0, -1, 'WITHSCORES'), ['report', taken]);
    }));

  test(`${topology}: a handler that outran its lease is acked while no other worker claimed the task`, () =>
    withReport(topology, async ({ r, errors, worker }) => {
      const runs = [];
      const handler = async ({ task }) => {
        runs.push(task);
        await waitFor(async () => (await zkit(r).delayStats('{jobs}', { inflight: '{jobs}:inflight' })).expired === 1, 10000, 'the lease to end');
      };
      assert.equal(await runUntil(worker({ leaseMs: 100, handler }), () => runs.length > 0, 'the run'), 1);
      assert.deepEqual([errors, runs, await r.zcard('{jobs}:inflight')], [[], ['report'], 0]);
    }));
}

for (const topology of ['single', 'cluster']) {
  test(`${topology}: a job worker hands over payloads, keeps failure reasons and acks with the data`, async () => {
    const r = await jobsServer(topology);
    const client = topology === 'cluster' ? await h.nodeRedisCluster() : h.ioredisSingle();
    const z = zkit(client);
    const [queue, inflight, data, dead, deliveries] = ['{jobs}', '{jobs}:inflight', '{jobs}:data', '{jobs}:dead', '{jobs}:deliveries'];
    const jobs = [{ dueMs: 0, task: 'ok', payload: 'to=ann' }, { dueMs: 0, task: 'flaky', payload: 'to=bob' }, { dueMs: 0, task: 'poison', payload: 'to=cat' }];
    assert.deepEqual(await z.delayAdd(queue, { data, jobs }), [1, 1, 1]);
    const runs = [];
    const seenByRetry = [];
    const worker = new DelayWorker(client, {
      queue,
      inflight,
      data,
      name: 'worker-1',
      blockMs: 50,
      retryDelayMs: 0,
      deadLetter: { dead, deliveries, maxDeliveries: 2 },
      onError: () => {},
      handler: async ({ task, payload, deliveries: delivered }) => {
        runs.push([task, payload, delivered]);
        if (task === 'flaky' && delivered === 1) throw new Error('SMTP 451: try again');
        if (task === 'flaky') seenByRetry.push(await z.delayJob(queue, 'flaky', { inflight, data }));
        if (task === 'poison') throw new TypeError('x'.repeat(5000));
      },
    });
    const running = worker.run();
    try {
      await waitFor(async () => (await r.zcard(dead)) === 1 && (await r.exists(queue, inflight)) === 0, 10000, 'the poison job to die');
    } finally {
      worker.stop();
      await running;
    }
    assert.deepEqual(runs.sort(), [['flaky', 'to=bob', 1], ['flaky', 'to=bob', 2], ['ok', 'to=ann', 1], ['poison', 'to=cat', 1], ['poison', 'to=cat', 2]]);
    const [retry] = seenByRetry;
    assert.deepEqual([retry.state, retry.payload, retry.lastReason, retry.worker], ['inflight', 'to=bob', 'Error: SMTP 451: try again', 'worker-1']);
    const poison = await z.delayJob(queue, 'poison', { inflight, dead, deliveries, data });
    assert.deepEqual([poison.state, poison.payload, poison.deliveries, poison.lastReason.length], ['dead', 'to=cat', 2, REASON_MAX_CHARS]);
    assert.ok(poison.lastReason.startsWith('TypeError: xxx') && poison.lastReason.endsWith('...'), poison.lastReason.slice(0, 40));
    assert.deepEqual((await r.hkeys(data)).sort(), ['d:poison', 'p:poison', 'r:poison']); // only the dead job's data is left
    assert.equal(await r.exists(deliveries), 0);
    await (topology === 'cluster' ? client.close() : client.quit());
    r.disconnect();
  });
}
