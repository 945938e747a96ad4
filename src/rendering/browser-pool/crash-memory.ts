// The recordings (content keys) that crashed Chromium alone, refused without a browser from then on.
// Bounded in count, and forgotten after an hour: a key changes with every new batch of a recording,
// and a crash that depended on the host (memory pressure) gets another chance.
import { LRUCache } from 'lru-cache';

export class CrashMemory {
  private readonly keys: LRUCache<string, true>;

  constructor(max: number, ttlMs = 3_600_000) {
    this.keys = new LRUCache<string, true>({ max: Math.max(1, max), ttl: ttlMs });
  }

  has(key: string): boolean {
    return this.keys.has(key);
  }

  remember(key: string): void {
    this.keys.set(key, true);
  }
}
