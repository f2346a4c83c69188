// DelayWorker drains 1,000 tasks with 4 worker processes while one is killed
// and every worker's connection is dropped: every task runs, none is lost,
// no two workers ever hold the same task at once, and the rest stop cleanly.
// With retryDelayMs and deadLetter, a failed task comes back after the delay
// and a task that always fails ends in the dead-letter set; with
// renewLeases, handlers outlast their leases.
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { beforeEach, test } from 'node:test';
import Redis from 'ioredis';
import { DelayWorker, keySlot } from 'zkit';
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
      leaseMs: 300,
      blockMs: 50,
      renewLeases: true,
      onError: (error, task) => errors.push(`${task?.task}: ${error.message}`),
      handler: async ({ task }) => {
        if (task === 'taken') await r.zrem('{jobs}:inflight', 'taken'); // as if another worker had finished it
        await new Promise((resolve) => setTimeout(resolve, 700)); // more than two leases
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
    // long:2 waited 700 ms for long:1 and then ran 700 ms: its lease was renewed all along.
    for (const task of ['long:1', 'long:2']) assert.ok(leftAfterRun[task] > 0 && leftAfterRun[task] <= 300, `${task}: ${leftAfterRun[task]} ms left`);
    assert.deepEqual(errors, ['taken: task taken lost its lease; it will be delivered again', 'taken: task taken outran its lease; not acked']);
    assert.deepEqual([await r.zcard('{jobs}'), await r.zcard('{jobs}:inflight')], [0, 0]); // both long tasks acked
    r.disconnect();
  });
}
