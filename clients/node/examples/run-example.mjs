// How the examples run as scripts (`node gift-board.mjs`): connected to
// REDIS_URL (redis://127.0.0.1:6379 when unset), through a cluster client
// when that server is a cluster node, on keys under a prefix of the run's
// own that are deleted afterwards, so an example runs beside any other data,
// and again. A server that does not answer fails the run at once instead of
// being retried.
import { randomUUID } from 'node:crypto';
import { zkitFunctionsModule, zkitModule } from 'zkit';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Runs example(...clients, prefix), one client per kind: 'ioredis' for an
 * ioredis client, or node-redis client options ({ modules }) for a
 * node-redis client; then deletes the keys it wrote and closes the clients.
 */
export async function runExample(example, ...kinds) {
  const clients = [];
  const prefix = `zkit-example:${randomUUID()}:`;
  try {
    for (const kind of kinds) clients.push(kind === 'ioredis' ? await ioredis() : await nodeRedis(kind));
    await example(...clients, prefix);
  } finally {
    if (clients.length) await deleteKeys(clients[0], prefix);
    for (const client of clients) await (client.close ? client.close() : client.quit());
  }
}

async function ioredis() {
  const { default: Redis } = await import('ioredis');
  const options = { retryStrategy: () => null };
  const probe = new Redis(url, { ...options, lazyConnect: true });
  let failure; // why the connection failed (connect() rejects with "Connection is closed.")
  probe.on('error', (error) => { failure = error; });
  await probe.connect().catch((error) => { throw failure ?? error; });
  const cluster = /cluster_enabled:1/.test(await probe.info('cluster'));
  probe.disconnect();
  // A node that answers slowly (a loaded machine) is waited for: ioredis
  // gives CLUSTER SLOTS 1 s by default, then fails the cluster as down.
  const clusterOptions = { clusterRetryStrategy: () => null, slotsRefreshTimeout: 10000, redisOptions: options };
  return cluster ? new Redis.Cluster([url], clusterOptions) : new Redis(url, options);
}

async function nodeRedis(options) {
  const { createClient, createCluster } = await import('redis');
  const socket = { reconnectStrategy: false };
  const probe = await createClient({ url, socket }).connect();
  const cluster = /cluster_enabled:1/.test(await probe.info('cluster'));
  // A server with zkit's Functions library instead of the module (a managed
  // service): node-redis's zkit commands as FCALLs (docs/functions.md).
  const [moduleCommand] = await probe.sendCommand(['COMMAND', 'INFO', 'RANK.GIFT']);
  if (!moduleCommand && options.modules?.zkit === zkitModule) {
    options = { ...options, modules: { ...options.modules, zkit: zkitFunctionsModule } };
  }
  await probe.close();
  return cluster
    ? createCluster({ rootNodes: [{ url }], defaults: { socket }, ...options }).connect()
    : createClient({ url, socket, ...options }).connect();
}

// SCAN on every primary (ioredis Cluster: nodes('master'); node-redis
// cluster: masters), DEL through the client, which routes each key.
async function deleteKeys(client, prefix) {
  let nodes = [client];
  if (typeof client.nodes === 'function') nodes = client.nodes('master');
  else if (client.masters) nodes = await Promise.all(client.masters.map((master) => client.nodeClient(master)));
  for (const node of nodes) {
    const keys = [];
    const batches = node.scanStream ? node.scanStream({ match: `${prefix}*` }) : node.scanIterator({ MATCH: `${prefix}*` });
    for await (const batch of batches) keys.push(...[batch].flat());
    for (const key of keys) await client.del(key);
  }
}
