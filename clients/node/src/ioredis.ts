// ioredis routes a command by the keys its Command object reports, which it
// looks up in a static table of Redis's own commands (@ioredis/commands);
// module commands are not in it, so they carry no keys, go to a random
// cluster node, and keyPrefix skips them. ioredis has no public way to
// declare a command's keys, so zkit sends a small subclass of ioredis's
// exported Command that reports the keys from zkit's table (already
// prefixed). Cluster.sendCommand, pipelines and MULTI read getKeys() /
// getSlot() from it like from any Command.

import type { Call, CommandSpec } from './commands';
import { keysOf, withKeyPrefix, type Transport } from './transport';
import { slotOf } from './slot';

/** The parts of an ioredis Redis, Cluster or Pipeline that zkit uses. */
export interface IoredisClient {
  isCluster: boolean;
  isPipeline?: boolean;
  options: { keyPrefix?: string; enableAutoPipelining?: boolean };
  slots?: string[][];
  sendCommand(command: unknown): unknown;
  pipeline(): IoredisClient & { exec(): Promise<unknown> };
}

export const isIoredis = (client: unknown): client is IoredisClient =>
  typeof (client as IoredisClient)?.isCluster === 'boolean' && typeof (client as IoredisClient).sendCommand === 'function';

interface ZkitCommand {
  promise: Promise<unknown>;
  reject(error: Error): void;
}
type ZkitCommandClass = new (spec: CommandSpec, call: Call) => ZkitCommand;

let zkitCommandClass: ZkitCommandClass | undefined;

// Loaded on first use, so node-redis users need not install ioredis.
function commandClass(): ZkitCommandClass {
  if (zkitCommandClass === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Command } = require('ioredis');
    zkitCommandClass = class extends Command {
      declare inTransaction: boolean;
      private readonly zkitKeys: Array<string | Buffer>;
      private readonly zkitParse: (reply: unknown) => unknown;
      constructor(spec: CommandSpec, call: Call) {
        super(spec.command, call.argv.slice(1), { replyEncoding: 'utf8', readOnly: spec.readonly });
        this.zkitKeys = keysOf(call);
        this.zkitParse = (reply) => spec.parse(reply, call.sent);
      }
      getKeys() {
        return this.zkitKeys;
      }
      transformReply(reply: unknown) {
        const value = super.transformReply(reply);
        // Inside MULTI the command's own reply is QUEUED; ioredis passes
        // its EXEC result through transformReply again.
        return this.inTransaction && value === 'QUEUED' ? value : this.zkitParse(value);
      }
    } as unknown as ZkitCommandClass;
  }
  return zkitCommandClass;
}

/** Queues a command for the next auto-pipelined batch of its slot's nodes. */
type AutoPipeliner = (command: ZkitCommand, slot: number) => void;
/** One auto-pipeliner per client, shared by every zkit(client) wrapper of it. */
const autoPipeliners = new WeakMap<IoredisClient, AutoPipeliner>();

export function ioredisTransport(client: IoredisClient): Transport {
  let batcher: AutoPipeliner | undefined;
  if (client.options.enableAutoPipelining && !client.isPipeline) {
    batcher = autoPipeliners.get(client) ?? autoPipeliner(client);
    autoPipeliners.set(client, batcher);
  }
  return async (spec, unprefixed) => {
    const call = withKeyPrefix(unprefixed, client.options.keyPrefix);
    const slot = client.isCluster ? slotOf(spec.label ?? spec.command, keysOf(call)) : 0;
    const command = new (commandClass())(spec, call);
    if (batcher) batcher(command, slot);
    else client.sendCommand(command);
    return command.promise;
  };
}

// ioredis's auto-pipelining queues only calls made through its own command
// methods, and keeps its queues private; zkit batches its commands the same
// way: one pipeline per group of slots served by the same nodes, sent on the
// next turn of the event loop. Like calls to different nodes under ioredis's
// own auto-pipelining, a zkit call and a native call made in the same tick
// may then reach the server in either order: await the one that must be first.
function autoPipeliner(client: IoredisClient): AutoPipeliner {
  const pending = new Map<string, { pipeline: ReturnType<IoredisClient['pipeline']>; commands: ZkitCommand[] }>();
  return (command, slot) => {
    const group = client.isCluster ? (client.slots?.[slot]?.join(',') ?? `slot ${slot}`) : 'main';
    let batch = pending.get(group);
    if (batch === undefined) {
      const created = { pipeline: client.pipeline(), commands: [] as ZkitCommand[] };
      pending.set(group, created);
      setImmediate(() => {
        pending.delete(group);
        // A pipeline refused as a whole never sends its commands, so their
        // own promises would not settle: reject them with its error.
        created.pipeline.exec().catch((error: Error) => created.commands.forEach((c) => c.reject(error)));
      });
      batch = created;
    }
    batch.commands.push(command);
    batch.pipeline.sendCommand(command);
  };
}
