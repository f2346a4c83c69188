// Compiled with `tsc --noEmit --strict` by scripts/suites/test-clients.sh against
// the installed package: the .d.ts types every method and reply, through
// zkit(client), zkitModule on node-redis clients and clusters, and DelayWorker.
import Redis from 'ioredis';
import { createClient, createCluster } from 'redis';
import { DelayWorker, zkit, zkitModule, type GroupState, type IdmpOption, type Job, type JobInfo, type RankInfo, type RatedJobs, type RatedTasks, type RateResult, type Schedule, type Task, type TotalRank } from 'zkit';

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
  const extended: boolean | number = await client.zkit.delayTouch('{q}:inflight', 'a', 60000);

  // Fenced leases: WITHTOKENS needs a lease; ACK LEASES with the tasks polled; NACK and TOUCH with a token.
  const fenced: Task[] = await z.delayPoll('{q}', { lease: { key: '{q}:inflight', ms: 5 }, withTokens: true });
  const token: number | undefined = fenced[0].token;
  // @ts-expect-error: WITHTOKENS needs LEASE
  await z.delayPoll('{q}', { withTokens: true });
  const fencedAck: number = await z.delayAck('{q}:inflight', { leases: fenced.map(({ task, token }) => ({ task, token: token! })) });
  const moduleAck: number = await cluster.zkit.delayAck('{q}:inflight', { leases: [{ task: 'a', token: 1 }], deliveries: '{q}:deliveries' });
  // @ts-expect-error: each lease names its task and its token
  await z.delayAck('{q}:inflight', { leases: [{ task: 'a' }] });
  const handedBack: boolean = await z.delayNack('{q}:inflight', '{q}', 'a', 0, { token: 1 });
  const renewed: number = await z.delayTouch('{q}:inflight', 'a', 60000, { token: 1 });
  const held: boolean = await z.delayTouch('{q}:inflight', 'a', 60000);

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

  // Jobs: DELAY.ADD's tasks or jobs (with DATA), WITHDATA's jobs, REASON with DATA, the job's state.
  const addedTasks: number[] = await z.delayAdd('{q}', [{ dueMs: 0, task: 'a' }], { extend: true });
  const addedJobs: number[] = await cluster.zkit.delayAdd('{q}', { data: '{q}:data', within: 1000, jobs: [{ dueMs: 0, task: 'a', payload: 'p' }] });
  // @ts-expect-error: KEEP, REPLACE and EXTEND exclude each other
  await z.delayAdd('{q}', [{ dueMs: 0, task: 'a' }], { keep: true, replace: true });
  // @ts-expect-error: JOBS needs DATA
  await z.delayAdd('{q}', { jobs: [{ dueMs: 0, task: 'a', payload: 'p' }] });
  const jobs: Job[] = await z.delayPoll('{q}', { lease: { key: '{q}:inflight', ms: 5 }, data: '{q}:data', withData: true, worker: 'w' });
  const payload: string | Buffer | null = jobs[0].payload;
  const waited: Job[] | null = await z.delayBpoll('{q}', 10, { data: '{q}:data', withData: true });
  // @ts-expect-error: WITHDATA needs DATA
  await z.delayPoll('{q}', { withData: true });
  // @ts-expect-error: WORKER needs LEASE
  await z.delayPoll('{q}', { data: '{q}:data', worker: 'w' });
  const failed: boolean = await z.delayNack('{q}:inflight', '{q}', 'a', 0, { token: 1, data: '{q}:data', reason: 'why' });
  // @ts-expect-error: REASON needs DATA
  await z.delayNack('{q}:inflight', '{q}', 'a', 0, { reason: 'why' });
  const job: JobInfo = await client.zkit.delayJob('{q}', 'a', { dead: '{q}:dead', data: '{q}:data' });
  const retried: number = await z.delayRetry('{q}:dead', '{q}', ['a'], { data: '{q}:data' });
  const paused: boolean = await cluster.zkit.delayPause('{q}', '{q}:data');
  const resumed: boolean = await z.delayResume('{q}', '{q}:data');
  const pausedNow: boolean | null = (await z.delayStats('{q}', { data: '{q}:data' })).paused;
  const jobAcked: number = await z.delayAck('{q}:inflight', { leases: jobs.map(({ task, token }) => ({ task, token: token! })), data: '{q}:data' });

  // Lanes, groups, rated claims and schedules.
  const laned: Task[] = await z.delayPoll('{q}', { count: 5, lanes: ['{q}:low'] });
  const ratedTasks: RatedTasks = await z.delayPoll('{q}', { rate: { log: '{q}:rate', windowMs: 1000, limit: 5 } });
  const ratedJobs: RatedJobs = await z.delayPoll('{q}', { data: '{q}:data', withData: true, rate: { log: '{q}:rate', windowMs: 1000, limit: 5 } });
  const ratedWait: Task[] | null = await z.delayBpoll('{q}', 10, { rate: { log: '{q}:rate', windowMs: 1000, limit: 5 } });
  const grouped: number[] = await z.delayAdd('{q}', [{ dueMs: 0, task: 'a' }], { data: '{q}:data', group: 'acme' });
  const capped: boolean = await z.delayGroup('{q}', '{q}:data', 'acme', { cap: 5, rate: { windowMs: 1000, limit: 10 } });
  const groups: GroupState[] = await z.delayGroups('{q}', '{q}:data');
  const every: number = await z.delaySchedule('{q}', '{q}:data', 'beat', 60000, { payload: 'p' });
  const daily: number = await client.zkit.delaySchedule('{q}', '{q}:data', 'daily', { cron: '0 9 * * *', tz: 'UTC' });
  // @ts-expect-error: a schedule needs EVERY or CRON
  await z.delaySchedule('{q}', '{q}:data', 'none', { tz: 'UTC' });
  const schedules: Schedule[] = await z.delaySchedules('{q}', '{q}:data');
  const unscheduled: boolean = await z.delayUnschedule('{q}', '{q}:data', 'beat');

  const worker = new DelayWorker(client, { queue: 'q', inflight: 'i', handler: (task: Task) => void task.dueMs });
  const jobWorker = new DelayWorker(client, { queue: 'q', inflight: 'i', data: 'd', name: 'w', handler: (job: Job) => void job.payload });
  // @ts-expect-error: a job handler needs DATA
  new DelayWorker(client, { queue: 'q', inflight: 'i', handler: (job: Job) => void job.payload });
  return [laned, ratedTasks, ratedJobs, ratedWait, grouped, capped, groups, every, daily, schedules, unscheduled, addedTasks, addedJobs, payload, waited, failed, job, retried, paused, resumed, pausedNow, jobAcked, jobWorker, gift, score, changed, tasks, worker, best, boards, friends, top, around, info, claimed, acked, moved, extended, token, fencedAck, moduleAck, handedBack, renewed, held, one, binding, applied, kept, gifted, hit, hits];
}
