// Compiled with `tsc --noEmit --strict` by scripts/test-clients.sh against
// the installed package: the .d.ts types every method and reply, through
// zkit(client), zkitModule on node-redis clients and clusters, and DelayWorker.
import Redis from 'ioredis';
import { createClient, createCluster } from 'redis';
import { DelayWorker, zkit, zkitModule, type IdmpOption, type RankInfo, type RateResult, type Task, type TotalRank } from 'zkit';

export async function typed(): Promise<unknown[]> {
  const z = zkit(new Redis({ lazyConnect: true }));
  const gift: TotalRank = await z.rankGift('board', 'alice', 1, { at: 1718000000000 });
  const score: number = (await z.feedPage('feed', { count: 3 })).items[0].score;

  const client = createClient({ modules: { zkit: zkitModule } });
  const vote = await client.zkit.voteCast('s', 'u', 'd', 'item', 'voter', 'UP', { weight: { up: 1, down: 2 } });
  const changed: boolean = vote.changed;
  // @ts-expect-error: the direction is UP, DOWN or CLEAR
  await client.zkit.voteCast('s', 'u', 'd', 'item', 'voter', 'SIDEWAYS');

  const cluster = createCluster({ rootNodes: [], modules: { zkit: zkitModule } });
  const tasks: Task[] | null = await cluster.zkit.delayBpoll('{q}', 10, { lease: { key: '{q}:inflight', ms: 5 } });
  // @ts-expect-error: the lease names its key and its ms
  await cluster.zkit.delayPoll('{q}', { lease: '{q}:inflight' });

  // SHARED, GT / LT (not both), MGIFT and MGET.
  const best: TotalRank = await z.rankSet('board', 'alice', 120, { gt: true, shared: true });
  // @ts-expect-error: GT and LT together are a syntax error
  await z.rankSet('board', 'alice', 120, { gt: true, lt: true });
  const boards: TotalRank[] = await client.zkit.rankMgift(['{r}:day', '{r}:week'], 'bob', 5, { at: 1, shared: true });
  const friends: Array<RankInfo | null> = await cluster.zkit.rankMget('board', ['alice', 'bob'], { shared: true });
  const top = await z.rankTop('board', 3, { offset: 1, shared: true });
  const around = await cluster.zkit.rankAround('board', 'bob', 1, { shared: true });
  const info = await client.zkit.rankGet('board', 'bob', { shared: true });
  // @ts-expect-error: MGIFT takes its boards as an array
  await z.rankMgift('{r}:day', 'bob', 5);

  // Dead letters need a lease; ACK with DELIVERIES; NACK and TOUCH answer booleans.
  const deadLetter = { dead: '{q}:dead', deliveries: '{q}:deliveries', maxDeliveries: 5 };
  const claimed: Task[] = await z.delayPoll('{q}', { count: 2, lease: { key: '{q}:inflight', ms: 5 }, deadLetter });
  // @ts-expect-error: DEADLETTER needs LEASE
  await cluster.zkit.delayBpoll('{q}', 10, { deadLetter });
  const acked: number = await cluster.zkit.delayAck('{q}:inflight', ['a', 'b'], { deliveries: '{q}:deliveries' });
  const moved: boolean = await z.delayNack('{q}:inflight', '{q}', 'a', 1000);
  const extended: boolean = await client.zkit.delayTouch('{q}:inflight', 'a', 60000);

  // One limit, or several as an array; binding only with several.
  const one: RateResult = await client.zkit.rateHit('rate', 1000, 5, { cost: 2 });
  const several = await cluster.zkit.rateHit('rate', [{ windowMs: 1000, limit: 5 }, { windowMs: 60000, limit: 50 }], { cost: 1 });
  const binding: number | undefined = several.binding;
  // @ts-expect-error: a limit needs its window
  await z.rateHit('rate', 5);
  // @ts-expect-error: each limit names windowMs and limit
  await z.rateHit('rate', [{ window: 1000, limit: 5 }]);

  // IDMP: [seenKey, eventId] and RETAIN on the four writes; the reply may say alreadyApplied.
  const once: IdmpOption = { idmp: ['{r}:seen', 'pay-881'], retain: 60000 };
  const applied: boolean | undefined = (await z.rankGift('{r}:day', 'alice', 10, once)).alreadyApplied;
  const kept: TotalRank = await client.zkit.rankSet('{r}:day', 'alice', 10, { gt: true, ...once });
  const gifted: TotalRank[] = await cluster.zkit.rankMgift(['{r}:day', '{r}:week'], 'bob', 5, { idmp: ['{r}:seen', 'pay-882'] });
  const hit: boolean | undefined = (await z.rateHit('{r}:rate', 1000, 5, { cost: 1, idmp: ['{r}:seen', 'req-1'] })).alreadyApplied;
  const hits: RateResult = await cluster.zkit.rateHit('{r}:rate', [{ windowMs: 1000, limit: 5 }], { idmp: ['{r}:seen', 'req-2'], retain: 1000 });
  // @ts-expect-error: idmp is [seenKey, eventId]
  await z.rankGift('{r}:day', 'alice', 10, { idmp: '{r}:seen' });
  // @ts-expect-error: idmp is [seenKey, eventId], not an object
  await z.rankGift('{r}:day', 'alice', 10, { idmp: { seenKey: '{r}:seen', eventId: 'pay-881' } });
  // @ts-expect-error: reads take no idmp
  await z.rankGet('{r}:day', 'alice', { idmp: ['{r}:seen', 'x'] });

  const worker = new DelayWorker(client, { queue: 'q', inflight: 'i', handler: (task: Task) => void task.dueMs });
  return [gift, score, changed, tasks, worker, best, boards, friends, top, around, info, claimed, acked, moved, extended, one, binding, applied, kept, gifted, hit, hits];
}
