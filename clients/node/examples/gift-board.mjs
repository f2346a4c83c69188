// Gift board: every gift returns the giver's total and rank; equal totals
// rank whoever reached them first. (ioredis)
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { zkit } from 'zkit';

export async function giftBoard(redis, prefix = '') { // prefix: your app's key namespace
  const z = zkit(redis);
  const board = `${prefix}gifts:room:42`;
  assert.deepEqual(await z.rankGift(board, 'alice', 100), { total: 100, rank: 1 });
  assert.deepEqual(await z.rankGift(board, 'bob', 50), { total: 50, rank: 2 });
  assert.deepEqual(await z.rankGift(board, 'carol', 300), { total: 300, rank: 1 });
  await sleep(10); // a moment later
  const { total, rank } = await z.rankGift(board, 'bob', 50);
  assert.deepEqual([total, rank], [100, 3]); // bob has 100 too, but alice got there first

  for (const entry of await z.rankTop(board, 3)) {
    console.log(entry.rank, entry.member, entry.total); // 1 carol 300 / 2 alice 100 / 3 bob 100
  }
  const bob = await z.rankGet(board, 'bob'); // { total, rank, reachedAtMs }
  assert.deepEqual([bob.total, bob.rank], [100, 3]);
  const around = await z.rankAround(board, 'alice', 1);
  assert.deepEqual(around.map((entry) => entry.member), ['carol', 'alice', 'bob']);

  // Daily boards merge into a weekly one in first-come order; keys used
  // together share a hash tag, for Redis Cluster.
  const room = `${prefix}{room42}`;
  await z.rankGift(`${room}:mon`, 'alice', 10);
  await z.rankGift(`${room}:tue`, 'bob', 10);
  assert.equal(await z.rankMerge(`${room}:week`, [`${room}:mon`, `${room}:tue`]), 2);

  // A board per day of the room's time zone: the server names today's
  // board (and yesterday's) with the TTL that keeps it a week after the day.
  const [today, yesterday] = await z.rankSeason(`${room}:day`, 'DAY', { tz: 'Europe/Paris', keep: 7 * 86400 });
  assert.equal(yesterday.endsAtMs, today.startsAtMs);
  assert.deepEqual(await z.rankGift(today.key, 'alice', 100, { ttl: today.ttl }), { total: 100, rank: 1 });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { runExample } = await import('./run-example.mjs'); // REDIS_URL, one server or a cluster, keys of its own
  await runExample(giftBoard, 'ioredis');
}
