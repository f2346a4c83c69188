// Clients of the servers scripts/suites/test-clients.sh started (ZKIT_TEST_SERVER,
// ZKIT_TEST_CLUSTER), each on its test's key prefix, and server statistics
// for the routing assertions.
// ZKIT_TEST_ENGINE=functions: the servers have zkit's Functions library, not
// the module; it is loaded here with loadFunctions(), as users load it.
import Redis from 'ioredis';
import { createClient, createCluster } from 'redis';
import { COMMANDS, zkit, zkitFunctionsModule, zkitModule } from 'zkit';

const hostPort = (address) => {
  const [host, port] = address.split(':');
  return { host, port: Number(port) };
};
export const SERVER = hostPort(process.env.ZKIT_TEST_SERVER);
export const CLUSTER = process.env.ZKIT_TEST_CLUSTER.split(',').map(hostPort);
/** 'module', or 'functions' for servers with only the library. */
export const ENGINE = process.env.ZKIT_TEST_ENGINE ?? 'module';
/** The node-redis module of zkit's commands for ENGINE. */
export const ZKIT_MODULE = ENGINE === 'functions' ? zkitFunctionsModule : zkitModule;

/** The INFO commandstats names counting calls of zkit `commands`: theirs with the module, FCALL's and FCALL_RO's with the library. */
export const callStats = (commands) =>
  ENGINE === 'functions'
    ? [...new Set(commands.map((c) => (READONLY.has(c.toUpperCase()) ? 'cmdstat_fcall_ro' : 'cmdstat_fcall')))]
    : commands.map((c) => `cmdstat_${c.toLowerCase()}`);
// The library's reads are FCALL_RO calls, as is the engine probe (FCALL_RO zkit_version).
const READONLY = new Set(Object.values(COMMANDS).filter((spec) => spec.readonly).map((spec) => spec.command));

if (ENGINE === 'functions') {
  for (const client of [new Redis(SERVER), new Redis.Cluster(CLUSTER)]) {
    const z = zkit(client);
    await z.loadFunctions();
    if ((await z.engine()) !== 'functions') throw new Error('the library did not load');
    await client.quit();
  }
}

// Each test's keys live under a prefix of their own, never used before, so
// the suite runs beside whatever else the servers hold and flushes nothing:
// every client below puts it before every key (ioredis's and node-redis's
// keyPrefix, which zkit honours), a keyPrefix the test gives goes after it.
const RUN = `zkit-test:${process.pid}-${Date.now()}`;
let testCount = 0;
let prefix = `${RUN}:${testCount}:`;
/** Starts a new prefix: call it before each test (beforeEach(h.newPrefix)). */
export function newPrefix() {
  prefix = `${RUN}:${++testCount}:`;
}
/** The current test's prefix; `usePrefix` sets it (for a worker process the test started). */
export const currentPrefix = () => prefix;
export const usePrefix = (given) => {
  prefix = given;
};
const prefixed = (options) => ({ ...options, keyPrefix: prefix + (options.keyPrefix ?? '') });

export const ioredisSingle = (options = {}) => new Redis({ ...SERVER, ...prefixed(options) });
export const ioredisCluster = (options = {}) => new Redis.Cluster(CLUSTER, prefixed(options));
export const nodeRedisSingle = () =>
  createClient({ socket: SERVER, modules: { zkit: ZKIT_MODULE }, keyPrefix: prefix }).connect();
export const nodeRedisCluster = (defaults = {}) =>
  createCluster({ rootNodes: CLUSTER.map((socket) => ({ socket })), defaults, modules: { zkit: ZKIT_MODULE }, keyPrefix: prefix }).connect();

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
