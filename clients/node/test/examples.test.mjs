// The examples the docs show run as they are, on one server and on the
// cluster, each with the client library it is written for, on the test's own
// key prefix (helpers.mjs) beside the other data scripts/suites/test-clients.sh
// seeds, which it checks they leave alone.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { beforeEach, test } from 'node:test';
import * as h from './helpers.mjs';
import { giftBoard } from '../examples/gift-board.mjs';
import { jobQueue } from '../examples/job-queue.mjs';
import { rateLimit } from '../examples/rate-limit.mjs';
import { recentlyViewed } from '../examples/recently-viewed.mjs';
import { votingSite } from '../examples/voting-site.mjs';
import { feed } from '../examples/feed.mjs';
import { quickStart } from '../examples/quick-start.mjs';

const IOREDIS = { 'gift-board': giftBoard, 'job-queue': jobQueue, 'recently-viewed': recentlyViewed, feed };
const NODE_REDIS = { 'rate-limit': rateLimit, 'voting-site': votingSite };
beforeEach(h.newPrefix);

test('every example is tested', () => {
  // run-example.mjs runs them as scripts; scripts/suites/test-clients.sh runs each so.
  const files = readdirSync(new URL('../examples', import.meta.url)).filter((f) => f.endsWith('.mjs') && f !== 'run-example.mjs');
  const tested = ['quick-start', ...Object.keys(IOREDIS), ...Object.keys(NODE_REDIS)];
  assert.deepEqual(files.map((f) => f.slice(0, -4)).sort(), tested.sort());
});

for (const [topology, ioredis, nodeRedis] of [
  ['single', h.ioredisSingle, h.nodeRedisSingle],
  ['cluster', h.ioredisCluster, h.nodeRedisCluster],
]) {
  test(`quick-start (${topology})`, async () => {
    const redis = ioredis();
    const client = await nodeRedis();
    await quickStart(redis, client);
    await redis.quit();
    await client.close();
  });
}

for (const [name, example] of Object.entries(IOREDIS)) {
  for (const [topology, connect] of [['single', h.ioredisSingle], ['cluster', h.ioredisCluster]]) {
    test(`${name} (ioredis, ${topology})`, async () => {
      const redis = connect();
      await example(redis);
      await redis.quit();
    });
  }
}

for (const [name, example] of Object.entries(NODE_REDIS)) {
  for (const [topology, connect] of [['single', h.nodeRedisSingle], ['cluster', h.nodeRedisCluster]]) {
    test(`${name} (node-redis, ${topology})`, async () => {
      const client = await connect();
      await example(client);
      await client.close();
    });
  }
}
