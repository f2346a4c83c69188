// Which zkit a server has: the module's commands, or zkit's Functions library
// (FUNCTION LOAD) on servers that refuse modules, such as managed Redis and
// Valkey services. Zkit asks on its first call (a wrong-arity RANK.GET, then
// FCALL_RO zkit_version) and sends each call to the one it found:
// `RANK.GIFT board alice 10` to the module, `FCALL zkit_rank_gift 1 board
// board alice 10` to the library, parsed the same way.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Call, CommandSpec } from './commands';

/** zkit's module, or its Functions library. */
export type Engine = 'module' | 'functions';

/** What ZkitNotLoaded says by default: how to load the library. */
export const NOT_LOADED =
  "zkit is not loaded on this server: it knows neither the zkit module's commands nor zkit's Functions " +
  'library. On a server that refuses modules (a managed service), load the library: ' +
  'await zkit(client).loadFunctions(), or redis-cli -x FUNCTION LOAD REPLACE < zkit.lua; else load the ' +
  'module (loadmodule /path/to/libzkit.so).';

/** The server has neither the zkit module nor its Functions library (or no Lua to load the library on). */
export class ZkitNotLoaded extends Error {
  constructor(message: string = NOT_LOADED) {
    super(message);
    this.name = 'ZkitNotLoaded';
  }
}

/** The ZkitNotLoaded for a server's error when it says the server has no Lua engine (Valkey 9+ without its Lua module), else null. */
export function withoutLua(error: unknown): ZkitNotLoaded | null {
  if (!said(error, "engine 'lua' not found", 'could not find scripting engine')) return null;
  return new ZkitNotLoaded(
    "zkit cannot run on this server: it has neither the zkit module nor Lua, which zkit's Functions library runs on " +
      `(the server answered: ${String((error as Error)?.message ?? error)}). Load the module (loadmodule /path/to/libzkit.so), ` +
      'or use a server with Lua scripting (on Valkey 9+, where Lua is a module of its own, one that loads it).',
  );
}

/** A client-side DELAY.BPOLL on the library (scripts cannot block) polls again after this many ms, doubling up to the second while nothing is due. */
export const BPOLL_BACKOFF_MS: [number, number] = [2, 250];

/** The Functions library this package ships (zkit.lua beside dist/, copied there by prepack), or in a checkout the repository's functions/zkit.lua. */
export function library(): string {
  for (const path of [join(__dirname, '..', 'zkit.lua'), join(__dirname, '..', '..', '..', 'functions', 'zkit.lua')]) {
    if (existsSync(path)) return readFileSync(path, 'utf8');
  }
  throw new Error('zkit.lua is missing: build the package with npm pack (its prepack copies functions/zkit.lua)');
}

/** The version a library text declares (`0.4.0+<digest>`). */
export function libraryVersion(text: string): string {
  const found = /^local VERSION = '([^']+)'/m.exec(text);
  if (!found) throw new Error('zkit.lua declares no VERSION');
  return found[1];
}

/** The release part of a library version, as numbers: [0, 3, 0]. */
export const release = (version: string): number[] => (version.split('+')[0].match(/\d+/g) ?? []).map(Number);

function compareReleases(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Whether to load the shipped library over what a server holds: none, an older release or another build of this one; a newer release stays unless `force`. */
export function shouldLoad(current: string | null, shipped: string, force: boolean): boolean {
  if (current === shipped) return false;
  if (current === null || force) return true;
  return compareReleases(release(current), release(shipped)) <= 0;
}

/** `RANK.GIFT` -> `zkit_rank_gift`. */
export const functionName = (command: string): string => `zkit_${command.toLowerCase().replace('.', '_')}`;

/**
 * A module call as the library's FCALL (FCALL_RO for a read): its keys
 * declared, then the command's own arguments. Every key argument is a key
 * index of the new call, its copy in the declaration and its place in the
 * arguments alike, so a client's keyPrefix is put before both.
 */
export function libraryCall(spec: CommandSpec, call: Call): { spec: CommandSpec; call: Call } {
  const keys = call.keyIndexes.map((i) => call.argv[i]);
  const fcall = spec.readonly ? 'FCALL_RO' : 'FCALL';
  const argv = [fcall, functionName(spec.command), String(keys.length), ...keys, ...call.argv.slice(1)];
  const keyIndexes = [...keys.map((_, i) => 3 + i), ...call.keyIndexes.map((i) => i + 2 + keys.length)];
  return { spec: { ...spec, command: fcall, label: spec.command }, call: { ...call, argv, keyIndexes } };
}

/** Sends one raw command (outside any pipeline) and resolves to its reply. */
export type Execute = (...argv: Array<string | number>) => Promise<unknown>;

const said = (error: unknown, ...texts: string[]): boolean => {
  const message = String((error as Error)?.message ?? error).toLowerCase();
  return texts.some((text) => message.includes(text));
};

/** Whether an error is the server's answer to an FCALL of a function it does not have. */
export const isMissingFunction = (error: unknown): boolean => said(error, 'function not found');

/** The engine a server has. */
export async function detect(execute: Execute): Promise<Engine> {
  try {
    await execute('RANK.GET');
    return 'module';
  } catch (error) {
    if (said(error, 'wrong number of arguments')) return 'module';
    // An ACL user may be refused the probe (NOPERM) yet call FCALL.
    if (!said(error, 'unknown command', 'no permissions')) throw error;
  }
  if ((await versionOn(execute)) === null) throw new ZkitNotLoaded();
  return 'functions';
}

/** The version of the library a server holds, or null. */
export async function versionOn(execute: Execute): Promise<string | null> {
  try {
    return String(await execute('FCALL_RO', 'zkit_version', 0));
  } catch (error) {
    if (isMissingFunction(error)) return null;
    throw error;
  }
}

/** Loads the shipped library unless the server holds it or (without `force`) a newer release; resolves to the version it holds after. */
export async function load(execute: Execute, force: boolean): Promise<string> {
  const text = library();
  const shipped = libraryVersion(text);
  const current = await versionOn(execute);
  if (!shouldLoad(current, shipped, force)) return current ?? shipped;
  try {
    await execute('FUNCTION', 'LOAD', 'REPLACE', text);
  } catch (error) {
    throw withoutLua(error) ?? error;
  }
  return shipped;
}

/** DELAY.BPOLL's refusal of a timeout, as the module words it. */
export function bpollTimeoutError(timeoutMs: number): string | null {
  if (timeoutMs < 0) return 'timeout is negative';
  if (timeoutMs > 3155760000000) return 'timeout is out of range';
  return null;
}
