// Clients of the servers scripts/test-clients.sh started (ZKIT_TEST_SERVER,
// ZKIT_TEST_CLUSTER), and server statistics for the routing assertions.
import Redis from 'ioredis';
import { createClient, createCluster } from 'redis';
import { zkitModule } from 'zkit';

const hostPort = (address) => {
  const [host, port] = address.split(':');
  return { host, port: Number(port) };
};
export const SERVER = hostPort(process.env.ZKIT_TEST_SERVER);
export const CLUSTER = process.env.ZKIT_TEST_CLUSTER.split(',').map(hostPort);

export const ioredisSingle = (options = {}) => new Redis({ ...SERVER, ...options });
export const ioredisCluster = (options = {}) => new Redis.Cluster(CLUSTER, options);
export const nodeRedisSingle = () =>
  createClient({ socket: SERVER, modules: { zkit: zkitModule } }).connect();
export const nodeRedisCluster = (defaults = {}) =>
  createCluster({ rootNodes: CLUSTER.map((socket) => ({ socket })), defaults, modules: { zkit: zkitModule } }).connect();

export async function flushAll() {
  for (const address of [SERVER, ...CLUSTER]) {
    const r = new Redis(address);
    await r.flushall();
    r.disconnect();
  }
}

/** Per cluster node: calls per command and counts per error, from INFO commandstats and errorstats. */
export async function nodeStats() {
  const stats = [];
  for (const address of CLUSTER) {
    const r = new Redis(address);
    const counts = {};
    for (const line of (await r.info('commandstats')).split('\r\n')) {
      const m = /^(cmdstat_[^:]+):calls=(\d+)/.exec(line);
      if (m) counts[m[1]] = Number(m[2]);
    }
    for (const line of (await r.info('errorstats')).split('\r\n')) {
      const m = /^(errorstat_[^:]+):count=(\d+)/.exec(line);
      if (m) counts[m[1]] = Number(m[2]);
    }
    stats.push(counts);
    r.disconnect();
  }
  return stats;
}
