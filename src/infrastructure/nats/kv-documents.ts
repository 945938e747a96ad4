// Small JSON documents in a JetStream key-value bucket, changed by compare-and-set: `update` applies a
// pure change to the value it last saw and writes it only if nobody wrote the key since (the KV's
// expected-revision check); on a conflict it reads the key and tries again. A change that returns no
// next value writes nothing (a refusal costs no write), and is decided on a fresh read, never on the
// remembered value alone. For shared counters (limits/), not bulk data.
import { KV, StorageType } from 'nats';
import { KeyedQueue } from '../../common/keyed-queue';
import { isWrongLastSequence } from './jetstream-errors';
import type { NatsClient } from './nats-connection';

const enc = new TextEncoder();
const dec = new TextDecoder();
/** Compare-and-set attempts before `update` gives up (only under heavy contention on one key). */
const ATTEMPTS = 30;

/** The change to a document: what to write (undefined: nothing) and what `update` resolves to. */
export type DocumentChange<T, R> = (current: T | undefined) => { next?: T; result: R };

/** The port limits/ depends on (a map in unit tests). */
export interface SharedDocuments {
  update<T, R>(key: string, change: DocumentChange<T, R>): Promise<R>;
}

export class KvDocuments implements SharedDocuments {
  /** The last revision and value this process saw of each key: the first try needs no read. */
  private readonly seen = new Map<string, { revision: number; value: unknown }>();
  private readonly queue = new KeyedQueue();

  private constructor(private readonly kv: KV) {}

  /** Opens (creating if needed) a bucket kept in memory: its documents are counters that may start afresh. */
  static async open(nats: NatsClient, bucket: string, o: { replicas: number; ttlMs: number }): Promise<KvDocuments> {
    return new KvDocuments(await nats.js.views.kv(bucket, { history: 1, replicas: o.replicas, storage: StorageType.Memory, ttl: o.ttlMs }));
  }

  /** One change per key at a time from this process: its own writes never conflict with each other. */
  update<T, R>(key: string, change: DocumentChange<T, R>): Promise<R> {
    return this.queue.run(key, () => this.change(key, change));
  }

  private async change<T, R>(key: string, change: DocumentChange<T, R>): Promise<R> {
    const cached = this.seen.get(key);
    let known = cached ?? (await this.read(key));
    let fresh = cached === undefined;
    for (let attempt = 1; ; attempt++) {
      const { next, result } = change(known.value as T | undefined);
      if (next === undefined) {
        // Nothing to write: a decision worth trusting only on what the key holds now.
        if (fresh) return result;
        known = await this.read(key);
        fresh = true;
        continue;
      }
      try {
        const data = enc.encode(JSON.stringify(next));
        const revision = known.revision === 0 ? await this.kv.create(key, data) : await this.kv.update(key, data, known.revision);
        this.seen.set(key, { revision, value: next });
        return result;
      } catch (e) {
        if (!isWrongLastSequence(e) || attempt >= ATTEMPTS) throw e;
        // A short random pause, so two writers that keep colliding fall out of step.
        await new Promise((r) => setTimeout(r, Math.random() * Math.min(attempt, 10)));
        known = await this.read(key);
        fresh = true;
      }
    }
  }

  private async read(key: string): Promise<{ revision: number; value: unknown }> {
    const e = await this.kv.get(key);
    // An expired key is created again (revision 0: nothing there); a deleted one is written over its
    // delete marker's revision.
    const known = { revision: e?.revision ?? 0, value: e?.operation === 'PUT' ? (JSON.parse(dec.decode(e.value)) as unknown) : undefined };
    this.seen.set(key, known);
    return known;
  }
}
