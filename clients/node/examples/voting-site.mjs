// Voting site (Redis in Action's, with down votes): a vote, a switch or a
// take-back is one atomic call; every key of the site shares the tag {news}.
// (node-redis, with zkit as a module)
import assert from 'node:assert/strict';
import { ErrorReply } from 'redis';
import { zkitModule } from 'zkit';

const WEEK = 604800;

export async function votingSite(client, prefix = '') { // prefix: your app's key namespace
  const news = `${prefix}{news}`;
  const posted = Math.floor(Date.now() / 1000);
  await client.zAdd(`${news}:time`, { score: posted, value: '100408' }); // post_article: post time,
  await client.zAdd(`${news}:score`, { score: posted + 432, value: '100408' }); // score = post time + 432,
  await client.sAdd(`${news}:up:100408`, 'user:83271'); // the poster's own vote
  const article = [`${news}:score`, `${news}:up:100408`, `${news}:down:100408`, '100408'];
  const rules = { weight: { up: 432, down: 432 }, window: { key: `${news}:time`, seconds: WEEK } };

  const vote = await client.zkit.voteCast(...article, 'user:115423', 'UP', rules);
  assert.deepEqual(vote, { score: posted + 864, ups: 2, downs: 0, changed: true });
  assert.equal((await client.zkit.voteCast(...article, 'user:115423', 'UP', rules)).changed, false); // twice: nothing
  assert.deepEqual(await client.zkit.voteCast(...article, 'user:115423', 'DOWN', rules), {
    score: posted, ups: 1, downs: 1, changed: true, // switched: -432 -432
  });
  assert.equal(await client.zkit.voteState(`${news}:up:100408`, `${news}:down:100408`, 'user:115423'), -1);
  assert.equal((await client.zkit.voteCast(...article, 'user:115423', 'CLEAR', rules)).score, posted + 432);

  await client.zAdd(`${news}:time`, { score: posted - 8 * 86400, value: '99999' }); // posted more than a week ago
  const old = [`${news}:score`, `${news}:up:99999`, `${news}:down:99999`, '99999'];
  await assert.rejects(client.zkit.voteCast(...old, 'user:115423', 'UP', rules),
    (e) => e instanceof ErrorReply && e.message.startsWith('ERR voting is closed'));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { runExample } = await import('./run-example.mjs'); // REDIS_URL, one server or a cluster, keys of its own
  await runExample(votingSite, { modules: { zkit: zkitModule } });
}
