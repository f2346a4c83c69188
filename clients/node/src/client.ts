import { buildCall, type CommandSpec, type ZkitCommands } from './commands';
import { COMMANDS } from './table';
import { ioredisTransport, isIoredis } from './ioredis';
import { isNodeRedis, nodeRedisTransport } from './node-redis';
import type { Transport } from './transport';

/**
 * zkit's commands on an ioredis Redis, Cluster or pipeline, or a node-redis
 * client or cluster: one method per command, resolving to a parsed reply.
 * On a cluster each call goes straight to the node owning its keys' slot;
 * keys of one call in different slots reject with CrossSlotError before
 * anything is sent.
 */
export class Zkit {
  constructor(
    readonly client: unknown,
    private readonly transport: Transport = pickTransport(client),
  ) {}

  /** Sends one command of the table; the methods of ZkitCommands call it. */
  send(spec: CommandSpec, params: unknown[]): Promise<unknown> {
    try {
      return this.transport(spec, buildCall(spec, params));
    } catch (error) {
      return Promise.reject(error);
    }
  }
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
export const zkit = (client: unknown): Zkit => new Zkit(client);
