// An in-memory stand-in for the JetStream KV bucket behind TenantRegistry, for unit tests: the same
// key rules, revisions, DEL markers, and a watcher that delivers asynchronously (as NATS does), so
// the registry's cache lags its writes exactly as it can in production.
import type { NatsClient } from '../../infrastructure/nats/nats-connection';

export interface MemoryEntry {
  key: string;
  operation: 'PUT' | 'DEL';
  revision: number;
  value: Uint8Array;
  string(): string;
}

type Watcher = (e: MemoryEntry) => void;

export class MemoryKv {
  private seq = 0;
  private readonly entries = new Map<string, MemoryEntry>();
  private readonly watchers = new Set<Watcher>();

  async get(key: string): Promise<MemoryEntry | null> {
    validate(key);
    return this.entries.get(key) ?? null;
  }

  async put(key: string, value: Uint8Array): Promise<number> {
    return this.write(key, 'PUT', value).revision;
  }

  /** Compare-and-set: refused ("wrong last sequence", as NATS says) unless `revision` is the key's last. */
  async update(key: string, value: Uint8Array, revision: number): Promise<number> {
    if ((this.entries.get(key)?.revision ?? 0) !== revision) throw new Error(`wrong last sequence: ${this.entries.get(key)?.revision ?? 0}`);
    return this.write(key, 'PUT', value).revision;
  }

  async delete(key: string): Promise<void> {
    this.write(key, 'DEL', new Uint8Array());
  }

  async watch(opts: { key: string; initializedFn?: () => void }) {
    const queue: MemoryEntry[] = [...this.entries.values()].sort((a, b) => a.revision - b.revision);
    let wake: (() => void) | undefined;
    let stopped = false;
    const push: Watcher = (e) => (queue.push(e), wake?.());
    this.watchers.add(push);
    setImmediate(() => opts.initializedFn?.());
    const watchers = this.watchers;
    return {
      stop() {
        stopped = true;
        watchers.delete(push);
        wake?.();
      },
      async *[Symbol.asyncIterator]() {
        while (!stopped) {
          const e = queue.shift();
          if (e) yield e;
          else await new Promise<void>((r) => (wake = r));
        }
      },
    };
  }

  private write(key: string, operation: 'PUT' | 'DEL', value: Uint8Array): MemoryEntry {
    validate(key);
    const e: MemoryEntry = { key, operation, value, revision: ++this.seq, string: () => new TextDecoder().decode(value) };
    this.entries.set(key, e);
    setImmediate(() => this.watchers.forEach((w) => w(e)));
    return e;
  }
}

/** The same checks as the nats client (leading/trailing dot, characters) plus no empty token. */
function validate(key: string) {
  if (key.startsWith('.') || key.endsWith('.') || key.includes('..') || !/^[-/=.\w]+$/.test(key)) throw new Error(`invalid key: ${key}`);
}

/** Just enough of NatsClient for TenantRegistry. */
export function memoryNats(kv: MemoryKv): NatsClient {
  return { js: { views: { kv: async () => kv } } } as unknown as NatsClient;
}
