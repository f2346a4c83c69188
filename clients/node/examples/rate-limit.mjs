// Rate limit: at most 2 comments in any 5 seconds, checked and logged in
// one step. (node-redis, with zkit as a module)
import assert from 'node:assert/strict';
import { zkitModule } from 'zkit';

export async function rateLimit(client, prefix = '') { // prefix: your app's key namespace
  const [comments, uploads] = [`${prefix}user:1000:comment`, `${prefix}user:1000:upload`];
  assert.deepEqual(await client.zkit.rateHit(comments, 5000, 2), {
    allowed: true, count: 1, remaining: 1, retryAfterMs: -1,
  });
  assert.equal((await client.zkit.rateHit(comments, 5000, 2)).allowed, true);
  const hit = await client.zkit.rateHit(comments, 5000, 2);
  assert.deepEqual([hit.allowed, hit.remaining], [false, 0]);
  console.log(`refused: retry in ${hit.retryAfterMs} ms`); // when the oldest hit leaves the window
  const upload = await client.zkit.rateHit(uploads, 60_000, 10, { cost: 4 }); // a bulk upload counts 4
  assert.equal(upload.remaining, 6);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { runExample } = await import('./run-example.mjs'); // REDIS_URL, one server or a cluster, keys of its own
  await runExample(rateLimit, { modules: { zkit: zkitModule } });
}
