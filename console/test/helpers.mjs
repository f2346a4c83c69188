// Servers, consoles and a headless Chromium for the console's tests. Every
// process started here is stopped by its own pid.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import Redis from 'ioredis';
import { chromium } from 'playwright-core';

import { parseOptions } from '../src/options.mjs';
import { createConsole } from '../src/server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
// Absolute: the server changes to its --dir before it loads the module.
export const MODULE = path.resolve(process.env.ZKIT_MODULE ?? path.join(here, '../../target/release/libzkit.so'));
const SERVER = process.env.REDIS_SERVER ?? 'redis-server';
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

const started = [];
const folders = [];

export async function freePort() {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function until(what, condition, ms = 30_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      if (await condition()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A redis-server with zkit on a free loopback port; `args` are more server options. */
export async function startServer(args = []) {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'zkit-console-'));
  folders.push(dir);
  const child = spawn(SERVER, ['--bind', '127.0.0.1', '--port', String(port), '--dir', dir, '--save', '', '--appendonly', 'no', '--loadmodule', MODULE, ...args], {
    stdio: 'ignore',
  });
  started.push(child);
  const client = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {}); // refused until the server listens
  await until(`redis-server on ${port}`, async () => {
    if (client.status !== 'ready') await client.connect();
    return (await client.ping()) === 'PONG';
  });
  return { port, client };
}

/** A cluster of three masters with zkit, made by redis-cli as an operator would. */
export async function startCluster() {
  const nodes = [];
  for (let i = 0; i < 3; i++) {
    const bus = await freePort();
    nodes.push(await startServer(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '5000', '--cluster-port', String(bus)]));
  }
  execFileSync('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '0', '--cluster-yes'], { stdio: 'ignore' });
  for (const node of nodes) {
    await until('cluster_state:ok', async () => /cluster_state:ok/.test(await node.client.cluster('INFO')) && /cluster_known_nodes:3/.test(await node.client.cluster('INFO')));
  }
  const client = new Redis.Cluster([{ host: '127.0.0.1', port: nodes[0].port }]);
  await until('the cluster client', async () => (await client.ping()) === 'PONG');
  return { nodes, client };
}

/** A console on a free port for the server at `port`; `args` as on its command line. */
export async function startConsole(port, args = []) {
  const options = parseOptions(['--url', `redis://127.0.0.1:${port}`, '--port', '0', ...args], process.env);
  const logs = [];
  const app = createConsole(options, (line) => logs.push(line));
  const address = await app.listen();
  return { app, url: `http://127.0.0.1:${address.port}`, logs };
}

export async function launchBrowser() {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export function stopAll() {
  for (const child of started) if (child.exitCode === null) child.kill('SIGTERM');
  started.length = 0;
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  folders.length = 0;
}
