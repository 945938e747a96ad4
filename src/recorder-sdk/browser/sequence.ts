// Per-recording sequence ids: strictly increasing positive integers that survive reloads of the tab.
// Ids are leased from the store in blocks, so a page that dies without `pagehide` can only leave a gap,
// never hand out an id twice (the server drops repeated sequenceIds of a recording).
import type { KeyValueStore } from './storage';

export class SequenceCounter {
  private nextId: number;
  /** Highest id this page may hand out without writing to the store again. */
  private leasedUpTo: number;
  /** What this page last wrote; a higher value in the store was written by a newer page of the tab. */
  private written: number | null = null;

  constructor(
    private readonly store: KeyValueStore,
    private readonly key: string,
    private readonly block = 100,
  ) {
    const stored = Number(store.getItem(key));
    this.nextId = Number.isSafeInteger(stored) && stored >= 1 ? stored : 1;
    this.leasedUpTo = this.nextId - 1;
  }

  next(): number {
    if (this.nextId > this.leasedUpTo) {
      this.leasedUpTo = this.nextId + this.block - 1;
      this.write(this.leasedUpTo + 1);
    }
    return this.nextId++;
  }

  /** Stores the exact next id (called when the page may go away), so a reload leaves no gap. */
  commit(): void {
    this.write(this.nextId);
    this.leasedUpTo = this.nextId - 1;
  }

  /**
   * Continues after whatever the store holds (a page restored from the back/forward cache: later pages
   * of the tab have used the counter meanwhile). The next id is leased afresh.
   */
  resync(): void {
    const stored = Number(this.store.getItem(this.key));
    if (Number.isSafeInteger(stored) && stored > this.nextId) this.nextId = stored;
    this.leasedUpTo = this.nextId - 1;
  }

  peek(): number {
    return this.nextId;
  }

  private write(value: number): void {
    try {
      // A cross-process navigation can run this page's pagehide after the next page has started and
      // leased from the store: lowering the counter then would hand that page's ids out again.
      const stored = Number(this.store.getItem(this.key));
      if (Number.isSafeInteger(stored) && stored > value && stored !== this.written) return;
      this.store.setItem(this.key, String(value));
      this.written = value;
    } catch {
      // Storage unavailable: ids stay unique within this page.
    }
  }
}
