// Random identifiers for recordings and batches. No DOM access: the random source is injected
// (defaults to globalThis.crypto), so this runs in node tests too.

/** The parts of WebCrypto we use; `randomUUID` exists only in secure contexts. */
export interface RandomSource {
  randomUUID?: () => string;
  getRandomValues?: (array: Uint8Array) => Uint8Array;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}

function defaultSource(): RandomSource | undefined {
  return (globalThis as { crypto?: RandomSource }).crypto;
}

/** A version 4 UUID: crypto.randomUUID, else getRandomValues, else Math.random. */
export function uuid(source: RandomSource | undefined = defaultSource()): string {
  if (source?.randomUUID) {
    try {
      return source.randomUUID();
    } catch {
      // Not a secure context on some engines: fall through.
    }
  }
  const bytes = new Uint8Array(16);
  if (source?.getRandomValues) {
    source.getRandomValues(bytes);
  } else {
    for (let i = 0; i < 16; i++) bytes[i] = Math.floor(Math.random() * 256);
  }
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  let hex = '';
  for (let i = 0; i < 16; i++) hex += (bytes[i] + 0x100).toString(16).slice(1);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
