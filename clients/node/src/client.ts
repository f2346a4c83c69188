import { buildCall, type Call, type CommandSpec } from './commands';
import type { ZkitCommands } from './methods';
import { COMMANDS } from './table';
import { BPOLL_BACKOFF_MS, ZkitNotLoaded, bpollTimeoutError, detect, isMissingFunction, libraryCall, load, withoutLua, type Engine, type Execute } from './engine';
import { ioredisTransport, isIoredis, type IoredisClient } from './ioredis';
import { isNodeRedis, nodeRedisTransport, type NodeRedisClient } from './node-redis';
import type { Transport } from './transport';
import type { RatedJobs, RatedTasks } from './replies';

/** `engine`: 'module' or 'functions' (zkit's Functions library); by default the first call asks the server. */
export interface ZkitOptions {
  engine?: Engine;
}

/**
 * zkit's commands on an ioredis Redis, Cluster or pipeline, or a node-redis
 * client or cluster: one method per command, resolving to a parsed reply.
 * On a cluster each call goes straight to the node owning its keys' slot;
 * keys of one call in different slots reject with CrossSlotError before
 * anything is sent.
 *
 * The same methods work with the zkit module and with zkit's Functions
 * library on servers that refuse modules: the first call asks the server
 * which it has (a server with neither rejects with ZkitNotLoaded, saying
 * how to load the library: loadFunctions()). A pipeline cannot ask: it uses
 * what an earlier call found on the same server, else the module.
 */
export class Zkit {
  private found?: Promise<Engine>;

  constructor(
    readonly client: unknown,
    private readonly transport: Transport = pickTransport(client),
    private readonly options: ZkitOptions = {},
  ) {}

  /** Sends one command of the table; the methods of ZkitCommands call it. */
  send(spec: CommandSpec, params: unknown[]): Promise<unknown> {
    try {
      const call = buildCall(spec, params);
      const known = this.options.engine ?? engines.get(serverOf(this.client));
      if (known !== undefined || isPipeline(this.client)) return this.sendTo(known ?? 'module', spec, call);
      return this.engine().then((engine) => this.sendTo(engine, spec, call));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The engine the server has: 'module' or 'functions' (asked once per server, then remembered). */
  engine(): Promise<Engine> {
    const known = this.options.engine ?? engines.get(serverOf(this.client));
    if (known !== undefined) return Promise.resolve(known);
    this.found ??= detect(executors(this.client)[0]).then((engine) => {
      engines.set(serverOf(this.client), engine);
      return engine;
    });
    return this.found;
  }

  /**
   * Loads zkit's Functions library (the copy this package ships) on the
   * server, on every primary of a cluster, where it is missing, an older
   * release or another build of this one; a newer release stays unless
   * `force`. Resolves to the version the (first) server holds after.
   */
  async loadFunctions(options: { force?: boolean } = {}): Promise<string> {
    const versions: string[] = [];
    for (const execute of await clusterExecutors(this.client)) versions.push(await load(execute, options.force ?? false));
    engines.delete(serverOf(this.client));
    this.found = undefined;
    await this.engine();
    return versions[0];
  }

  private sendTo(engine: Engine, spec: CommandSpec, call: Call): Promise<unknown> {
    if (engine === 'module') return this.transport(spec, call);
    const sent = spec.command === 'DELAY.BPOLL' ? this.pollUntilDue(call) : this.toLibrary(spec, call);
    // The library was removed since (FUNCTION DELETE or FLUSH): say how to load it, and ask again next time. A server
    // without Lua cannot run it: say so.
    return sent.catch((error: unknown) => {
      if (!isMissingFunction(error)) throw withoutLua(error) ?? error;
      engines.delete(serverOf(this.client));
      this.found = undefined;
      throw new ZkitNotLoaded();
    });
  }

  private toLibrary(spec: CommandSpec, call: Call): Promise<unknown> {
    const sent = libraryCall(spec, call);
    return this.transport(sent.spec, sent.call);
  }

  /** DELAY.BPOLL on the library, which cannot block: DELAY.POLL again with backoff until a task is due or the timeout passes. */
  private async pollUntilDue(call: Call): Promise<unknown> {
    if (isPipeline(this.client)) {
      throw new TypeError("DELAY.BPOLL: zkit's Functions library cannot block, so the client polls, which a pipeline cannot: use delayPoll there");
    }
    const timeoutMs = Number(call.argv[2]);
    const refused = bpollTimeoutError(timeoutMs);
    if (refused) throw new Error(refused);
    const poll = {
      ...call,
      argv: [COMMANDS.delayPoll.command, call.argv[1], ...call.argv.slice(3)],
      keyIndexes: call.keyIndexes.map((i) => (i > 2 ? i - 1 : i)),
    };
    const sent = libraryCall(COMMANDS.delayPoll, poll);
    const deadline = timeoutMs === 0 ? Infinity : Date.now() + timeoutMs;
    let waitMs = BPOLL_BACKOFF_MS[0];
    for (;;) {
      // With `rate`, DELAY.POLL resolves to what the window allowed and the ms until it has room; delayBpoll to the tasks.
      const reply = (await this.transport(sent.spec, sent.call)) as unknown[] | RatedTasks | RatedJobs;
      const [tasks, roomInMs] = Array.isArray(reply) ? [reply, -1] : ['jobs' in reply ? reply.jobs : reply.tasks, reply.retryAfterMs];
      if (tasks.length > 0) return tasks;
      const left = deadline - Date.now();
      if (left <= 0) return null;
      await new Promise((resolve) => setTimeout(resolve, Math.min(roomInMs > 0 ? roomInMs : waitMs, left)));
      waitMs = Math.min(waitMs * 2, BPOLL_BACKOFF_MS[1]);
    }
  }
}

/** The engine found on each server, by address (or by client, when it has none). */
const engines = new Map<unknown, Engine>();

type AnyClient = Partial<IoredisClient> &
  Partial<NodeRedisClient> & {
    redis?: unknown; // an ioredis pipeline's client
    call?: (...argv: unknown[]) => Promise<unknown>;
    nodes?: (role: string) => unknown[];
    startupNodes?: unknown;
    options?: { host?: string; port?: number; path?: string };
    masters?: unknown[];
    nodeClient?: (node: unknown) => unknown;
    _options?: { socket?: unknown; rootNodes?: unknown };
  };

const isPipeline = (client: unknown): boolean => (client as AnyClient).isPipeline === true;

/** Where a client sends: its server's address (a cluster's seed nodes), the same for every client and pipeline of it. */
function serverOf(client: unknown): unknown {
  let c = client as AnyClient;
  if (c.isPipeline && c.redis) c = c.redis as AnyClient;
  if (c.isCluster === true && c.startupNodes) return `ioredis-cluster ${JSON.stringify(c.startupNodes)}`;
  if (c.isCluster === false && c.options) return `ioredis ${c.options.path ?? `${c.options.host}:${c.options.port}`}`;
  if (c._options?.rootNodes) return `node-redis-cluster ${JSON.stringify(c._options.rootNodes)}`;
  if (c._options?.socket) return `node-redis ${JSON.stringify(c._options.socket)}`;
  return client;
}

/** Raw senders outside any pipeline: the server, or a random cluster node. */
function executors(client: unknown): Execute[] {
  let c = client as AnyClient;
  if (c.isPipeline && c.redis) c = c.redis as AnyClient;
  if (typeof c.call === 'function') {
    const call = c.call.bind(c);
    return [(...argv) => call(...argv)];
  }
  const send = c.sendCommand!.bind(c) as (...args: unknown[]) => Promise<unknown>;
  if (typeof c.getSlotMaster === 'function') return [(...argv) => send(undefined, false, argv.map(String))];
  return [(...argv) => send(argv.map(String))];
}

/** Raw senders to the server, or to every primary of a cluster. */
async function clusterExecutors(client: unknown): Promise<Execute[]> {
  let c = client as AnyClient;
  if (c.isPipeline && c.redis) c = c.redis as AnyClient;
  if (c.isCluster === true && typeof c.nodes === 'function') {
    return c.nodes('master').map((node) => executors(node)[0]);
  }
  if (typeof c.getSlotMaster === 'function' && Array.isArray(c.masters) && typeof c.nodeClient === 'function') {
    const nodes = await Promise.all(c.masters.map((master) => c.nodeClient!(master)));
    return nodes.map((node) => executors(node)[0]);
  }
  return executors(c);
}

// The methods are made from the table; ZkitCommands declares their types.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Zkit extends ZkitCommands {}
for (const [method, spec] of Object.entries(COMMANDS)) {
  Object.defineProperty(Zkit.prototype, method, {
    value(this: Zkit, ...params: unknown[]) {
      return this.send(spec, params);
    },
    writable: true,
    configurable: true,
  });
}

function pickTransport(client: unknown): Transport {
  if (isIoredis(client)) return ioredisTransport(client);
  if (isNodeRedis(client)) return nodeRedisTransport(client);
  throw new TypeError('zkit: expected an ioredis Redis, Cluster or pipeline, or a node-redis client or cluster');
}

/** Wraps a client: `zkit(redis).rankGift('board', 'alice', 10)`. */
export const zkit = (client: unknown, options: ZkitOptions = {}): Zkit => new Zkit(client, pickTransport(client), options);
