// Recently viewed: one call records views, moves repeats to the front,
// keeps the newest 60 and refreshes a 30-day TTL. (ioredis)
import assert from 'node:assert/strict';
import { zkit } from 'zkit';

export async function recentlyViewed(redis, prefix = '') { // prefix: your app's key namespace
  const z = zkit(redis);
  const key = `${prefix}MemberRecentGoods:66`;
  assert.equal(await z.recentAdd(key, ['3002', '3001', '3004'], { cap: 60, ttl: 2_592_000 }), 3); // the list's size
  assert.equal(await z.recentAdd(key, '3001', { cap: 60, ttl: 2_592_000 }), 3); // viewed again
  assert.deepEqual(await redis.zrevrange(key, 0, 9), ['3001', '3004', '3002']); // newest first, a native read
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { runExample } = await import('./run-example.mjs'); // REDIS_URL, one server or a cluster, keys of its own
  await runExample(recentlyViewed, 'ioredis');
}
