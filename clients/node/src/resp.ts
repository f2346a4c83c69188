// Generic readers of RESP2 and RESP3 values that the generated reply
// parsers (replies.ts, from docs/commands.json's reply schemas) compose:
// what every reply shape needs, whatever the command.

/** A member, task id, voter or cursor as the client returns it. */
export type Text = string | Buffer;

export type Raw = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A bulk string as the client returns it. */
export const text = (reply: Raw): Text => reply;

/** An integer, or nil read as 0. */
export const intOrZero = (reply: Raw): number => (reply === null || reply === undefined ? 0 : Number(reply));

/** The value read by `read`, or null for nil (or a field the reply lacks). */
export const orNull =
  <T>(read: (reply: Raw) => T) =>
  (reply: Raw): T | null =>
    reply === null || reply === undefined ? null : read(reply);

export const listOf =
  <T>(read: (reply: Raw) => T) =>
  (reply: Raw): T[] =>
    reply.map((item: Raw) => read(item));

/** Tuples of `width` elements laid out one after another in one array. */
export const flatListOf =
  <T>(width: number, read: (reply: Raw) => T) =>
  (reply: Raw): T[] => {
    const out: T[] = [];
    for (let i = 0; i < reply.length; i += width) out.push(read(reply.slice(i, i + width)));
    return out;
  };

/** A field list `[name, value, ...]` (or a RESP3 map) as an object keyed by camelCase name. */
export function fieldValues(reply: Raw): Record<string, Raw> {
  const out: Record<string, Raw> = {};
  const pairs: Array<[Raw, Raw]> = Array.isArray(reply) ? [] : reply instanceof Map ? [...reply.entries()] : Object.entries(reply);
  if (Array.isArray(reply)) for (let i = 0; i < reply.length; i += 2) pairs.push([reply[i], reply[i + 1]]);
  for (const [name, value] of pairs) {
    out[String(name).replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())] = value;
  }
  return out;
}

/** The IDMP flag that ends the reply of a call that gave IDMP (`sent`: the options it gave; undefined without it). */
export const appliedFlag = (reply: Raw, sent?: readonly string[]): boolean | undefined =>
  sent?.includes('IDMP') ? Number(reply[reply.length - 1]) === 1 : undefined;

/** The reply without its IDMP flag. */
export const withoutFlag = (reply: Raw, sent?: readonly string[]): Raw => (sent?.includes('IDMP') ? reply.slice(0, -1) : reply);

/** A reply (or each of a list) carrying the IDMP flag as `alreadyApplied`; as it is without IDMP. */
export function markApplied<T>(value: T, applied: boolean | undefined): T {
  if (applied === undefined) return value;
  if (Array.isArray(value)) return value.map((item) => markApplied(item, applied)) as T;
  return { ...value, alreadyApplied: applied };
}
