// One entry per recording in the SEALS_BUCKET key-value bucket: the seal job's state (written before
// an archive is put, so a deletion or the orphan sweep can find it) and its outcome (for operations).
// It is bookkeeping, not the commit point: the stream's sealed batch records are (recording-sealer.ts).
import { KV, StorageType } from 'nats';
import type { NatsClient } from './nats-connection';
import { SEALS_BUCKET } from './subjects';

export interface SealState {
  state: 'sealing' | 'sealed' | 'failed';
  /** Archive being written (sealing) or holding the recording (sealed). */
  archive?: string;
  /** Batches, payload bytes before and archive bytes after. */
  batches?: number;
  rawBytes?: number;
  archiveBytes?: number;
  error?: string;
  /** Epoch ms of the state change. */
  at: number;
}

const dec = new TextDecoder();
const enc = new TextEncoder();
export const sealKey = (tenantId: string, recordingId: string) => `${tenantId}.${recordingId}`;

export class SealStates {
  private bucket?: Promise<KV>;

  constructor(
    private readonly nats: NatsClient,
    private readonly replicas = 1,
  ) {}

  open(): Promise<KV> {
    this.bucket ??= this.nats.js.views.kv(SEALS_BUCKET, { history: 1, replicas: this.replicas, storage: StorageType.File }).catch((e: unknown) => {
      this.bucket = undefined;
      throw e;
    });
    return this.bucket;
  }

  async get(tenantId: string, recordingId: string): Promise<SealState | undefined> {
    const e = await (await this.open()).get(sealKey(tenantId, recordingId));
    return e?.operation === 'PUT' ? (JSON.parse(dec.decode(e.value)) as SealState) : undefined;
  }

  async put(tenantId: string, recordingId: string, s: SealState): Promise<void> {
    await (await this.open()).put(sealKey(tenantId, recordingId), enc.encode(JSON.stringify(s)));
  }

  async delete(tenantId: string, recordingId: string): Promise<void> {
    await (await this.open()).purge(sealKey(tenantId, recordingId));
  }

  /** Every entry (key → state): the CLI's and the metrics' view, and the worker's resumption of jobs cut short. */
  async all(): Promise<Map<string, SealState>> {
    const kv = await this.open();
    const out = new Map<string, SealState>();
    for await (const key of await kv.keys()) {
      const s = await kv.get(key);
      if (s?.operation === 'PUT') out.set(key, JSON.parse(dec.decode(s.value)) as SealState);
    }
    return out;
  }
}
