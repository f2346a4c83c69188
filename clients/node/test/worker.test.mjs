// DelayWorker drains 1,000 tasks with 4 worker processes while one is killed
// and every worker's connection is dropped: every task runs, none is lost,
// no two workers ever hold the same task at once, and the rest stop cleanly.
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { beforeEach, test } from 'node:test';
import Redis from 'ioredis';
import { keySlot } from 'zkit';
import * as h from './helpers.mjs';

const TASKS = 1000;
const WORKERS = 4;
beforeEach(h.flushAll);

/** A plain connection to the server that holds {jobs}. */
async function jobsServer(topology) {
  if (topology === 'single') return new Redis(h.SERVER);
  const cluster = h.ioredisCluster();
  await cluster.ping(); // loads the slot table
  const [host, port] = cluster.slots[keySlot('{jobs}')][0].split(':');
  await cluster.quit();
  return new Redis({ host, port: Number(port) });
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
    await r.zadd('{jobs}', ...Array.from({ length: TASKS }, (_, n) => [n, `task:${n}`]).flat());
    const workers = Array.from({ length: WORKERS }, (_, w) =>
      fork(new URL('./drain-worker.mjs', import.meta.url), [topology, String(w)]));
    let exits;
    try {
      await waitFor(async () => (await r.llen('{jobs}:log')) >= 200, 30000, '200 tasks done');
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
