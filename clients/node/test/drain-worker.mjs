// One DelayWorker process of worker.test.mjs: drains {jobs}, logging each
// run as "task worker start_ms end_ms", until SIGTERM asks it to stop.
// ioredis on one server, node-redis on the cluster.
import { DelayWorker } from 'zkit';
import * as h from './helpers.mjs';

const [topology, workerId, keyPrefix] = process.argv.slice(2);
h.usePrefix(keyPrefix); // the test's
// Named, so the test sees when every worker is connected.
const name = `drain-worker-${workerId}`;
const client = topology === 'cluster' ? await h.nodeRedisCluster({ name }) : h.ioredisSingle({ connectionName: name });
const log = (task, start) => `${task} ${workerId} ${start} ${Date.now()}`;
const record = topology === 'cluster'
  ? async (task, start) => { await client.sAdd('{jobs}:done', task); await client.rPush('{jobs}:log', log(task, start)); }
  : async (task, start) => { await client.sadd('{jobs}:done', task); await client.rpush('{jobs}:log', log(task, start)); };

const worker = new DelayWorker(client, {
  queue: '{jobs}',
  inflight: '{jobs}:inflight',
  leaseMs: 2000,
  count: 5,
  blockMs: 200,
  reconnectDelayMs: 100,
  onError: () => {}, // dropped connections are expected here
  handler: async ({ task }) => {
    const start = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 2)); // the work
    await record(task, start);
  },
});
process.on('SIGTERM', () => worker.stop());
await worker.run();
await (topology === 'cluster' ? client.close() : client.quit());
