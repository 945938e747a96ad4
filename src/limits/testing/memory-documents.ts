// SharedDocuments in memory for unit specs: values are copied in and out (as JSON through NATS), a
// change is applied after a macrotask and written only if nobody wrote the key meanwhile (else
// tried again), so concurrent instances interleave as they do on the KV. `failing` makes every
// update reject (NATS down).
import type { DocumentChange, SharedDocuments } from '../../infrastructure/nats/kv-documents';

export class MemoryDocuments implements SharedDocuments {
  private readonly docs = new Map<string, { revision: number; json: string }>();
  private revision = 0;
  failing = false;
  writes = 0;

  async update<T, R>(key: string, change: DocumentChange<T, R>): Promise<R> {
    for (;;) {
      if (this.failing) throw new Error('nats down');
      const seen = this.docs.get(key);
      await new Promise((r) => setImmediate(r));
      const { next, result } = change(seen ? (JSON.parse(seen.json) as T) : undefined);
      if (next === undefined) return result;
      if (this.docs.get(key)?.revision !== seen?.revision) continue;
      this.docs.set(key, { revision: ++this.revision, json: JSON.stringify(next) });
      this.writes++;
      return result;
    }
  }

  get<T>(key: string): T | undefined {
    const d = this.docs.get(key);
    return d ? (JSON.parse(d.json) as T) : undefined;
  }

  set(key: string, value: unknown): void {
    this.docs.set(key, { revision: ++this.revision, json: JSON.stringify(value) });
  }
}
