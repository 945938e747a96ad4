// KvDocuments against the real nats-server (a bucket of its own on the shared stack's NATS): two
// instances changing one document concurrently lose no change (compare-and-set), a refusal is decided
// on what the key holds now rather than on a remembered value, and a deleted key is written again.
import { randomBytes } from 'node:crypto';
import { KvDocuments } from '../../src/infrastructure/nats/kv-documents';
import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { natsClient } from '../e2e/projections-fixtures';

let nats: NatsClient;
let bucket: string;

beforeAll(async () => {
  nats = await natsClient();
  bucket = `test_docs_${randomBytes(4).toString('hex')}`;
});

afterAll(async () => {
  await nats?.jsm.streams.delete(`KV_${bucket}`).catch(() => undefined);
  await nats?.close();
});

const open = () => KvDocuments.open(nats, bucket, { replicas: 1, ttlMs: 60_000 });
const increment = (docs: KvDocuments, key: string) =>
  docs.update<{ n: number }, number>(key, (d) => ({ next: { n: (d?.n ?? 0) + 1 }, result: (d?.n ?? 0) + 1 }));

describe('KvDocuments', () => {
  it('loses no change when two instances write one document at once', async () => {
    const [a, b] = [await open(), await open()];
    await Promise.all(Array.from({ length: 40 }, (_, i) => increment(i % 2 ? a : b, 'count')));
    expect(await increment(a, 'count')).toBe(41);
  });

  it('decides a refusal on what the key holds now, not on the value it remembers', async () => {
    const [a, b] = [await open(), await open()];
    const admit = (docs: KvDocuments) =>
      docs.update<{ n: number }, boolean>('slots', (d) => ((d?.n ?? 0) >= 1 ? { result: false } : { next: { n: 1 }, result: true }));
    expect(await admit(a)).toBe(true);
    expect(await admit(b)).toBe(false);
    // a frees the slot; b still remembers n = 1
    await a.update<{ n: number }, void>('slots', () => ({ next: { n: 0 }, result: undefined }));
    expect(await admit(b)).toBe(true);
  });

  it('writes a deleted key again', async () => {
    const docs = await open();
    await increment(docs, 'gone');
    await (await nats.js.views.kv(bucket)).delete('gone');
    expect(await increment(docs, 'gone')).toBe(1);
  });
});
