import type { Call, CommandSpec } from './commands';

/** Sends one call built from the command table and resolves to its parsed reply. */
export type Transport = (spec: CommandSpec, call: Call) => Promise<unknown>;

/** `call` with `prefix` put before every key argument (the client's keyPrefix). */
export function withKeyPrefix(call: Call, prefix: string | Buffer | undefined): Call {
  if (prefix === undefined || prefix.length === 0) return call;
  const argv = call.argv.slice();
  for (const i of call.keyIndexes) {
    const key = argv[i];
    argv[i] =
      typeof prefix === 'string' && typeof key === 'string'
        ? prefix + key
        : Buffer.concat([Buffer.from(prefix), Buffer.from(key)]);
  }
  return { ...call, argv };
}

export const keysOf = (call: Call): Array<string | Buffer> => call.keyIndexes.map((i) => call.argv[i]);
