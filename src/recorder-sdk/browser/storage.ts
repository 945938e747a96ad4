// A key-value store shaped like Web Storage. The recorder uses sessionStorage when it works and an
// in-memory map otherwise (sandboxed iframes, storage disabled): then a reload starts a new recording.

export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export class MemoryStore implements KeyValueStore {
  private readonly map = new Map<string, string>();
  getItem(key: string): string | null {
    return this.map.has(key) ? (this.map.get(key) as string) : null;
  }
  setItem(key: string, value: string): void {
    this.map.set(key, String(value));
  }
  removeItem(key: string): void {
    this.map.delete(key);
  }
}

/** Wraps a store so that reads and writes never throw (quota exceeded, access denied). */
export class SafeStore implements KeyValueStore {
  constructor(private readonly inner: KeyValueStore) {}
  getItem(key: string): string | null {
    try {
      return this.inner.getItem(key);
    } catch {
      return null;
    }
  }
  /** Returns false when the write failed (quota, access). */
  setItem(key: string, value: string): boolean {
    try {
      this.inner.setItem(key, value);
      return true;
    } catch {
      return false;
    }
  }
  removeItem(key: string): void {
    try {
      this.inner.removeItem(key);
    } catch {
      // ignore
    }
  }
}

export const RECORDING_ID_KEY = 'tapedeck-recording-id';
export const sequenceKey = (recordingId: string) => `tapedeck-sequence-id:${recordingId}`;
export const pendingKey = (recordingId: string) => `tapedeck-pending:${recordingId}`;
