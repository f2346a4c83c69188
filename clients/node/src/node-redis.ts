// node-redis routes a cluster command by the first key its parser was given
// (parser.pushKey, which also applies keyPrefix), so zkit's commands are
// node-redis module commands built from zkit's table: zkitModule for
// createClient / createCluster({ modules: { zkit: zkitModule } }), which also
// works in MULTI and pipelines. zkit(client) on an existing client sends
// through sendCommand, naming the first key for cluster routing.

import { buildCall, type CommandSpec } from './commands';
import type { ZkitCommands } from './methods';
import { COMMANDS } from './table';
import { slotOf } from './slot';
import { keysOf, withKeyPrefix, type Transport } from './transport';
import { libraryCall } from './engine';

/** The parts of a node-redis client or cluster that zkit uses. */
export interface NodeRedisClient {
  sendCommand(...args: unknown[]): Promise<unknown>;
  getSlotMaster?: unknown; // only a cluster has it
  _keyPrefix?: string | Buffer; // node-redis 6+: the keyPrefix option
}

export const isNodeRedis = (client: unknown): client is NodeRedisClient =>
  typeof (client as NodeRedisClient)?.sendCommand === 'function' &&
  typeof (client as { isCluster?: unknown }).isCluster !== 'boolean';

export function nodeRedisTransport(client: NodeRedisClient): Transport {
  const isCluster = typeof client.getSlotMaster === 'function';
  return async (spec, unprefixed) => {
    // Raw sendCommand does not apply keyPrefix: zkit does.
    const call = withKeyPrefix(unprefixed, client._keyPrefix);
    if (!isCluster) return spec.parse(await client.sendCommand(call.argv), call.sent);
    slotOf(spec.label ?? spec.command, keysOf(call));
    return spec.parse(await client.sendCommand(call.argv[call.keyIndexes[0]], spec.readonly, call.argv), call.sent);
  };
}

/** The subset of node-redis's CommandParser a module command uses. */
interface CommandParser {
  push(...args: Array<string | Buffer>): unknown;
  pushKey(key: string | Buffer): unknown;
  /** Handed to transformReply by node-redis 5. */
  preserve?: unknown;
}

type ModuleCommand<M extends (...args: never) => Promise<unknown>> = {
  IS_READ_ONLY: boolean;
  parseCommand(parser: CommandParser, ...args: Parameters<M>): void;
  transformReply(reply: unknown, preserve?: unknown): Awaited<ReturnType<M>>;
};

export type ZkitModule = { [K in keyof ZkitCommands]: ModuleCommand<ZkitCommands[K]> };

/** One zkit command as a node-redis module command; `toLibrary` sends it to the Functions library (as FCALL) instead of the module. */
function moduleCommand(spec: CommandSpec, toLibrary: boolean) {
  return {
    IS_READ_ONLY: spec.readonly,
    parseCommand(parser: CommandParser, ...params: unknown[]) {
      let call = buildCall(spec, params);
      // A module cannot tell a cluster from a single server, so the
      // same-slot rule is checked everywhere: code then moves to a cluster
      // unchanged. It sees the keys as given, before pushKey adds keyPrefix.
      slotOf(spec.command, keysOf(call));
      if (toLibrary) {
        if (spec.command === 'DELAY.BPOLL') {
          throw new TypeError("DELAY.BPOLL: zkit's Functions library cannot block: call delayPoll, or zkit(client).delayBpoll, which polls");
        }
        call = libraryCall(spec, call).call;
      }
      call.argv.forEach((arg, i) => (call.keyIndexes.includes(i) ? parser.pushKey(arg) : parser.push(arg)));
      // The reply parser must know the options the call gave (IDMP, TOKEN).
      parser.preserve = call.sent;
    },
    transformReply: (reply: unknown, preserve?: unknown) => spec.parse(reply, Array.isArray(preserve) ? preserve : []),
  };
}

const moduleOf = (toLibrary: boolean): ZkitModule =>
  Object.fromEntries(
    Object.entries(COMMANDS).map(([method, spec]) => [method, moduleCommand(spec, toLibrary)]),
  ) as unknown as ZkitModule;

/** zkit's commands as a node-redis module: `createClient({ modules: { zkit: zkitModule } })`, then `client.zkit.rankGift(...)`. */
export const zkitModule = moduleOf(false);

/** zkitModule for servers with zkit's Functions library instead of the module (each call an FCALL): `createClient({ modules: { zkit: zkitFunctionsModule } })`. */
export const zkitFunctionsModule = moduleOf(true);
