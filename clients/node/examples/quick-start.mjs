// Quick start: wrap an ioredis Redis, Cluster or pipeline, or a node-redis
// client or cluster; or give node-redis zkit as a module.
import assert from 'node:assert/strict';
import { zkit, zkitModule } from 'zkit';

export async function quickStart(redis, client, prefix = '') { // prefix: your app's key namespace
  const board = `${prefix}gifts:room:1`;
  const z = zkit(redis); // redis: new Redis(...) or new Redis.Cluster([...])
  const { total, rank } = await z.rankGift(board, 'alice', 100);
  assert.deepEqual([total, rank], [100, 1]);

  // client: createClient({ modules: { zkit: zkitModule } }), or createCluster with the same modules
  assert.deepEqual(await client.zkit.rankGift(board, 'bob', 50), { total: 50, rank: 2 });
  const [gift, top] = await client.multi().zkit.rankGift(board, 'carol', 10).zkit.rankTop(board, 2).exec();
  assert.deepEqual([gift.rank, top.map((entry) => entry.member)], [3, ['alice', 'bob']]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { runExample } = await import('./run-example.mjs'); // REDIS_URL, one server or a cluster, keys of its own
  await runExample(quickStart, 'ioredis', { modules: { zkit: zkitModule } });
}
