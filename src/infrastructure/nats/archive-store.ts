// Recording archives in a JetStream Object Store bucket (ARCHIVES_BUCKET, created at boot with the
// event stream's replication: stream-provisioner.ts). Objects are immutable by name (a recording's
// archive is named after the last stream sequence it holds), so decoded archives are cached by name.
// JetStream failures throw StoreUnavailable; a missing object is `undefined`.
import { Logger } from '@nestjs/common';
import { nanos, ObjectStore, StorageType } from 'nats';
import { Archive } from './archive-format';
import { StoreUnavailable } from '../../common/app-error';
import type { NatsClient } from './nats-connection';
import { ARCHIVES_BUCKET } from './subjects';

/** Compressed bytes of decoded archives kept in memory per process. */
const CACHE_BYTES = 64 * 1024 * 1024;

export const archiveName = (tenantId: string, recordingId: string, lastSeq: number) => `${tenantId}.${recordingId}.${lastSeq}`;

/** The parts of an archiveName (tenant and recording ids hold no dot: they are subject tokens); undefined for any other name. */
export function parseArchiveName(name: string): { tenantId: string; recordingId: string; lastSeq: number } | undefined {
  const parts = name.split('.');
  if (parts.length !== 3 || !parts[0] || !parts[1] || !/^\d+$/.test(parts[2])) return undefined;
  return { tenantId: parts[0], recordingId: parts[1], lastSeq: Number(parts[2]) };
}

export class ArchiveStore {
  private readonly logger = new Logger('archives');
  private bucket?: Promise<ObjectStore>;
  private readonly cache = new Map<string, Archive>();
  private readonly loading = new Map<string, Promise<Archive | undefined>>();
  private cached = 0;

  constructor(
    private readonly nats: NatsClient,
    private readonly replicas = 1,
    /** Age limit of a bucket this creates, in milliseconds (0: none); boot sets it (archiveMaxAgeMs). */
    private readonly maxAgeMs = 0,
  ) {}

  /** Opens the bucket, creating it when missing (boot creates it first, with STREAM_REPLICAS and its age limit). */
  open(): Promise<ObjectStore> {
    const opts = { replicas: this.replicas, storage: StorageType.File, ...(this.maxAgeMs > 0 ? { ttl: nanos(this.maxAgeMs) } : {}) };
    this.bucket ??= this.nats.js.views.os(ARCHIVES_BUCKET, opts).catch((e: unknown) => {
      this.bucket = undefined;
      throw e;
    });
    return this.bucket;
  }

  async put(name: string, bytes: Uint8Array): Promise<void> {
    await this.call('write', async () => {
      await (await this.open()).putBlob({ name }, bytes);
    });
  }

  /** The object's bytes, undefined when there is none of that name. */
  async get(name: string): Promise<Uint8Array | undefined> {
    return this.call('read', async () => (await (await this.open()).getBlob(name)) ?? undefined);
  }

  /** Deletes the object; one already gone counts as deleted. */
  async delete(name: string): Promise<void> {
    this.forget(name);
    await this.call('delete', async () => {
      const os = await this.open();
      if (await os.info(name)) await os.delete(name);
    });
  }

  /** Every archive's name and size (operations and the orphan sweep). */
  async list(): Promise<{ name: string; size: number; mtime: string }[]> {
    return this.call('list', async () =>
      (await (await this.open()).list()).filter((i) => !i.deleted).map((i) => ({ name: i.name, size: i.size, mtime: i.mtime })),
    );
  }

  /**
   * The decoded archive (cached), undefined when the object is gone. Loads of one archive at once
   * share one fetch: a projector batch loads it for every record, and a read alongside.
   */
  async load(name: string): Promise<Archive | undefined> {
    const hit = this.cache.get(name);
    if (hit) {
      this.cache.delete(name);
      this.cache.set(name, hit);
      return hit;
    }
    let p = this.loading.get(name);
    if (!p) {
      p = this.fetch(name).finally(() => this.loading.delete(name));
      this.loading.set(name, p);
    }
    return p;
  }

  private async fetch(name: string): Promise<Archive | undefined> {
    const bytes = await this.get(name);
    if (!bytes) return undefined;
    const a = new Archive(bytes);
    this.cache.set(name, a);
    this.cached += a.size;
    for (const [k, v] of this.cache) {
      if (this.cached <= CACHE_BYTES || k === name) break;
      this.cache.delete(k);
      this.cached -= v.size;
    }
    return a;
  }

  forget(name: string): void {
    const a = this.cache.get(name);
    if (!a) return;
    this.cache.delete(name);
    this.cached -= a.size;
  }

  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      this.logger.warn({ msg: `archive ${what} failed`, err: String((e as Error).message) });
      throw new StoreUnavailable(`Archive store (NATS object store) could not ${what}; retry later`);
    }
  }
}
