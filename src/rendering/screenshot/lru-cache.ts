// A small LRU over Map insertion order, bounded by entry count and by an optional total weight.
export class LruCache<K, V> {
  private readonly map = new Map<K, { value: V; weight: number }>();
  private total = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly options: { maxWeight?: number; weigh?: (v: V) => number; onEvict?: (key: K, value: V) => void } = {},
  ) {}

  get size(): number {
    return this.map.size;
  }

  get weight(): number {
    return this.total;
  }

  get(key: K): V | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    this.map.delete(key);
    this.map.set(key, hit);
    return hit.value;
  }

  peek(key: K): V | undefined {
    return this.map.get(key)?.value;
  }

  set(key: K, value: V): void {
    const weight = this.options.weigh?.(value) ?? 0;
    this.delete(key);
    if (this.maxEntries <= 0 || (this.options.maxWeight !== undefined && weight > this.options.maxWeight)) return;
    this.map.set(key, { value, weight });
    this.total += weight;
    while (this.map.size > this.maxEntries || (this.options.maxWeight !== undefined && this.total > this.options.maxWeight)) {
      const oldest = this.map.keys().next().value as K;
      this.evict(oldest);
    }
  }

  /** Removes without calling onEvict. */
  delete(key: K): V | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    this.map.delete(key);
    this.total -= hit.weight;
    return hit.value;
  }

  values(): V[] {
    return [...this.map.values()].map((e) => e.value);
  }

  clear(): void {
    for (const key of [...this.map.keys()]) this.evict(key);
  }

  private evict(key: K): void {
    const value = this.delete(key);
    if (value !== undefined) this.options.onEvict?.(key, value);
  }
}
