// Servers (with the module or only the Functions library, a password, TLS),
// a listener that never speaks, consoles and a headless Chromium for the
// console's tests. Every process started here is stopped by its own pid.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';

import Redis from 'ioredis';
import { chromium } from 'playwright-core';

import { parseOptions } from '../src/options.mjs';
import { createConsole } from '../src/server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
// Absolute: the server changes to its --dir before it loads the module.
export const MODULE = path.resolve(process.env.ZKIT_MODULE ?? path.join(here, '../../target/release/libzkit.so'));
const LIBRARY = path.join(here, '../../functions/zkit.lua');
const SERVER = process.env.REDIS_SERVER ?? 'redis-server';
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

const started = [];
const folders = [];
const listeners = [];

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

/**
 * A redis-server on a free loopback port; `args` are more server options.
 * With zkit's module unless `module` is false; `password` is its
 * requirepass; `tls` ({ cert, key } files) makes the port speak TLS only.
 */
export async function startServer(args = [], { module = true, password, tls } = {}) {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'zkit-console-'));
  folders.push(dir);
  const listen = tls
    ? ['--port', '0', '--tls-port', String(port), '--tls-cert-file', tls.cert, '--tls-key-file', tls.key, '--tls-auth-clients', 'no']
    : ['--port', String(port)];
  const extra = [...(module ? ['--loadmodule', MODULE] : []), ...(password ? ['--requirepass', password] : []), ...args];
  const child = spawn(SERVER, ['--bind', '127.0.0.1', ...listen, '--dir', dir, '--save', '', '--appendonly', 'no', ...extra], { stdio: 'ignore' });
  started.push(child);
  const client = new Redis({
    port,
    password,
    tls: tls ? { ca: readFileSync(tls.cert) } : undefined,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {}); // refused until the server listens
  await until(`redis-server on ${port}`, async () => {
    if (client.status !== 'ready') await client.connect();
    return (await client.ping()) === 'PONG';
  });
  return { port, client };
}

/** A redis-server without the module that serves zkit through its Functions library, loaded as docs/functions.md says. */
export async function startLibraryServer() {
  const server = await startServer([], { module: false });
  await server.client.call('FUNCTION', 'LOAD', 'REPLACE', readFileSync(LIBRARY, 'utf8'));
  return server;
}

/** A self-signed certificate for 127.0.0.1 and localhost: { cert, key } files. */
export function selfSignedCertificate() {
  const dir = mkdtempSync(path.join(tmpdir(), 'zkit-console-tls-'));
  folders.push(dir);
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  return { cert, key };
}

/** A TCP listener on a free loopback port that accepts connections and never says a byte (no TLS handshake, no Redis). */
export async function startSilentListener() {
  const sockets = new Set();
  const listener = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => listener.listen(0, '127.0.0.1', resolve));
  listeners.push({ listener, sockets });
  return { port: listener.address().port };
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

/**
 * One HTTP request with the headers given, Host and Origin included (which
 * fetch and a browser will not forge); resolves to { status, headers, body }.
 * `signal` aborts it.
 */
export function httpRequest(url, { method = 'GET', headers = {}, body, signal } = {}) {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers: { host: target.host, ...headers }, signal },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A name this browser resolves to 127.0.0.1, as a name an attacker controls does once it is rebound to the console's address. */
export const REBOUND_NAME = 'rebound.example';

async function launchBrowser() {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--host-resolver-rules=MAP ${REBOUND_NAME} 127.0.0.1`,
    ],
  });
}

/**
 * A headless Chromium for a test file: launched before its tests, closed
 * after them, when every process started here stops too. Its `browser` is
 * set once the tests run.
 */
export function useBrowser() {
  const session = { browser: null };
  before(async () => {
    session.browser = await launchBrowser();
  });
  after(async () => {
    await session.browser?.close();
    stopAll();
  });
  return session;
}

export function stopAll() {
  for (const child of started) if (child.exitCode === null) child.kill('SIGTERM');
  started.length = 0;
  for (const { listener, sockets } of listeners) {
    for (const socket of sockets) socket.destroy();
    listener.close();
  }
  listeners.length = 0;
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  folders.length = 0;
}
