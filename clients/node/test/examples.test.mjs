// The examples the docs show run as they are, on one server and on the
// cluster, each with the client library it is written for: on an empty
// database, and on their own key prefix beside other data (the docs'
// walk-through keys and an app's own), which they leave alone.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { beforeEach, test } from 'node:test';
import Redis from 'ioredis';
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
  const files = readdirSync(new URL('../examples', import.meta.url)).filter((f) => f.endsWith('.mjs'));
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

/** Every key of the database and its DUMP (hex), read on each node. */
async function snapshot(topology) {
  const keys = {};
  for (const address of topology === 'single' ? [h.SERVER] : h.CLUSTER) {
    const node = new Redis(address);
    for (const key of await node.keys('*')) keys[key] = (await node.dumpBuffer(key)).toString('hex');
    node.disconnect();
  }
  return keys;
}

for (const [topology, ioredis, nodeRedis] of [
  ['single', h.ioredisSingle, h.nodeRedisSingle],
  ['cluster', h.ioredisCluster, h.nodeRedisCluster],
]) {
  test(`every example on its own prefix beside other data (${topology})`, async () => {
    const redis = ioredis();
    const client = await nodeRedis();
    const run = async (name, prefix) => {
      if (name === 'quick-start') return quickStart(redis, client, prefix);
      if (name in IOREDIS) return IOREDIS[name](redis, prefix);
      return NODE_REDIS[name](client, prefix);
    };
    const names = ['quick-start', ...Object.keys(IOREDIS), ...Object.keys(NODE_REDIS)];
    for (const name of names) {
      await h.flushAll();
      // The docs' walk-through keys (every example once, no prefix) and an app's own.
      for (const other of names) await run(other, '');
      await redis.set('session:1', 'x');
      await redis.zadd('feed:user:8', 1, 'item:1');
      const before = await snapshot(topology);
      const prefix = `test:${randomUUID().slice(0, 8)}:`;
      await run(name, prefix);
      const after = await snapshot(topology);
      const others = Object.fromEntries(Object.entries(after).filter(([key]) => !key.startsWith(prefix)));
      assert.deepEqual(others, before, `${name} touched other keys`);
      assert.ok(Object.keys(after).some((key) => key.startsWith(prefix)), `${name} wrote nothing under its prefix`);
    }
    await redis.quit();
    await client.close();
  });
}
