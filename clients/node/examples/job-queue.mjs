// Job queue: tasks scheduled with ZADD by due time, claimed once each, and
// run at least once by DelayWorker (leases, acks, redelivery). (ioredis)
import assert from 'node:assert/strict';
import { DelayWorker, zkit } from 'zkit';

export async function jobQueue(redis, prefix = '') { // prefix: your app's key namespace
  const [jobs, inflight] = [`${prefix}{jobs}`, `${prefix}{jobs}:inflight`];
  const z = zkit(redis);
  const now = Date.now();
  await redis.zadd(jobs, now - 1000, 'mail:17', now, 'mail:18', now + 3_600_000, 'report:1');

  // At-most-once: a poll removes what it claims.
  const claimed = await z.delayPoll(jobs, { count: 10 });
  assert.deepEqual(claimed.map(({ task }) => task), ['mail:17', 'mail:18']);
  assert.equal(await z.delayBpoll(jobs, 100), null); // nothing due within 100 ms

  // At-least-once: a worker leases each task into {jobs}:inflight, acks it
  // when the handler resolves, and leaves it there when the handler rejects
  // (the task is delivered again when its lease ends).
  await redis.zadd(jobs, now, 'mail:19', now, 'mail:20');
  const done = [];
  const workerClient = redis.duplicate(); // DELAY.BPOLL holds its connection while it waits
  const worker = new DelayWorker(workerClient, {
    queue: jobs,
    inflight,
    leaseMs: 60_000,
    blockMs: 100,
    handler: async ({ task }) => { done.push(task); }, // must be idempotent: a task may run twice
  });
  const running = worker.run();
  while (done.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
  worker.stop(); // resolves within blockMs
  await running;
  await workerClient.quit();
  assert.deepEqual(done.sort(), ['mail:19', 'mail:20']);
  assert.equal(await redis.zcard(inflight), 0); // both acked
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { runExample } = await import('./run-example.mjs'); // REDIS_URL, one server or a cluster, keys of its own
  await runExample(jobQueue, 'ioredis');
}
