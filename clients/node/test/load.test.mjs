// 10,000 calls over 1,000 keys per client on the cluster: every call reaches
// the node owning its keys on the first try (no MOVED or ASK) and costs no
// COMMAND GETKEYS, for the commands Redis marks movablekeys too.
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { COMMANDS, zkit } from 'zkit';
import * as h from './helpers.mjs';

const CALLS = 10_000;
const KEYS = 1_000;
const ZKIT = new Set(h.callStats(Object.values(COMMANDS).map((spec) => spec.command)));

beforeEach(h.newPrefix);

/** Call makers over key i's own hash tag, the movable-key commands among them. */
const calls = (z) => [
  (i) => z.rankGift(`{u${i}}:board`, 'alice', 1),
  (i) => z.rankMerge(`{u${i}}:week`, [`{u${i}}:board`]),
  (i) => z.voteCast(`{u${i}}:s`, `{u${i}}:up`, `{u${i}}:down`, 'item', `v${i}`, 'UP'),
  (i) => z.delayPoll(`{u${i}}:q`, { lease: { key: `{u${i}}:inflight`, ms: 60000 } }),
  (i) => z.rateHit(`{u${i}}:rate`, 60000, 100),
  (i) => z.feedPage(`{u${i}}:feed`),
  (i) => z.recentAdd(`{u${i}}:recent`, 'a', { cap: 5 }),
  (i) => z.rankTop(`{u${i}}:board`, 3),
];

/** CALLS calls in waves of 100 concurrent ones (ioredis's auto-pipelining batches each wave), over KEYS keys. */
async function inWaves(makers) {
  for (let wave = 0; wave < CALLS / 100; wave++) {
    await Promise.all(Array.from({ length: 100 }, (_, j) => {
      const n = wave * 100 + j;
      return makers[n % makers.length](n % KEYS);
    }));
  }
}

async function assertRoutedFirstTry(run) {
  const before = await h.nodeStats();
  await run();
  const after = await h.nodeStats();
  const delta = (node, name) => (after[node][name] ?? 0) - (before[node][name] ?? 0);
  const perNode = after.map((stats, node) =>
    Object.keys(stats).filter((name) => ZKIT.has(name)).reduce((sum, name) => sum + delta(node, name), 0));
  assert.equal(perNode.reduce((a, b) => a + b), CALLS, `zkit calls per node: ${perNode}`);
  assert.ok(perNode.every((n) => n > 1000), `every master serves its share: ${perNode}`);
  for (let node = 0; node < after.length; node++) {
    assert.equal(delta(node, 'errorstat_MOVED'), 0, 'MOVED');
    assert.equal(delta(node, 'errorstat_ASK'), 0, 'ASK');
    assert.equal(delta(node, 'cmdstat_command|getkeys'), 0, 'COMMAND GETKEYS');
  }
}

test('ioredis Cluster, auto-pipelined, keyPrefix: 10,000 calls, 0 redirects', async () => {
  const r = h.ioredisCluster({ enableAutoPipelining: true, keyPrefix: 'app:' });
  await assertRoutedFirstTry(() => inWaves(calls(zkit(r))));
  await r.quit();
});

test('node-redis cluster with zkitModule: 10,000 calls, 0 redirects', async () => {
  const cluster = await h.nodeRedisCluster();
  await assertRoutedFirstTry(() => inWaves(calls(cluster.zkit)));
  await cluster.close();
});
