// Redis Cluster hash slots, and the check that one call's keys share one.

/** The keys of one call hash to different cluster slots; thrown before anything is sent. */
export class CrossSlotError extends Error {
  constructor(command: string, keys: ReadonlyArray<string | Buffer>, slots: number[]) {
    const listed = keys.map((key, i) => `'${key.toString()}' (slot ${slots[i]})`).join(', ');
    super(
      `${command}: keys must share a hash slot, but ${listed} do not; ` +
        'give them one hash tag, e.g. {tag}:a and {tag}:b',
    );
    this.name = 'CrossSlotError';
  }
}

// CRC16-CCITT (XModem), the checksum Redis Cluster hashes keys with.
const CRC16_TABLE = new Uint16Array(256);
for (let byte = 0; byte < 256; byte++) {
  let crc = byte << 8;
  for (let bit = 0; bit < 8; bit++) {
    crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  CRC16_TABLE[byte] = crc;
}

/** The slot of a key: CRC16 of its hash tag (the text inside the first non-empty `{...}`) or of the whole key, mod 16384. */
export function keySlot(key: string | Buffer): number {
  let bytes = typeof key === 'string' ? Buffer.from(key) : key;
  const open = bytes.indexOf(0x7b); // '{'
  if (open !== -1) {
    const close = bytes.indexOf(0x7d, open + 1); // '}'
    if (close > open + 1) bytes = bytes.subarray(open + 1, close);
  }
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ byte) & 0xff];
  return crc % 16384;
}

/** The one slot of all `keys`, or a CrossSlotError naming them. */
export function slotOf(command: string, keys: ReadonlyArray<string | Buffer>): number {
  const slots = keys.map(keySlot);
  if (slots.some((slot) => slot !== slots[0])) throw new CrossSlotError(command, keys, slots);
  return slots[0];
}
