// Compiled with `tsc --noEmit --strict` by scripts/test-clients.sh against
// the installed package: the .d.ts types every method and reply, through
// zkit(client), zkitModule on node-redis clients and clusters, and DelayWorker.
import Redis from 'ioredis';
import { createClient, createCluster } from 'redis';
import { DelayWorker, zkit, zkitModule, type Task, type TotalRank } from 'zkit';

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

  const worker = new DelayWorker(client, { queue: 'q', inflight: 'i', handler: (task: Task) => void task.dueMs });
  return [gift, score, changed, tasks, worker];
}
