// The stored-bytes quota across two instances (docs/limits.md): over it, ingestion is refused with
// 507 naming the limit, before anything is stored; every acknowledged event reads back; deleting
// recordings makes room again. Usage is re-read every second here (TENANT_USAGE_REFRESH_SECONDS=1).
import { randomUUID } from 'node:crypto';
import { api, Res } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import type { PrivateStack } from '../harness/private-stack';
import { expectRefusal, limitedTenant, openSocket, OpenedSocket, paddedEvents, post, twoInstances } from './limits-fixtures';

let stack: PrivateStack;
let s1: string;
let s2: string;

beforeAll(async () => {
  stack = await twoInstances({ TENANT_USAGE_REFRESH_SECONDS: '1' });
  [s1, s2] = stack.services.map((s) => s.url);
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

const QUOTA = 60_000;
/** About 5 KB stored per batch. */
const batch = () => paddedEvents(5, 1000);
const BATCH_BYTES = JSON.stringify(batch()).length;

describe('stored-bytes quota', () => {
  it('refuses ingestion over the quota with 507 on both instances, and every acknowledged event reads back', async () => {
    // The ingestion rate bounds how far past the quota the other instance gets before it re-reads the usage.
    const t = await limitedTenant(stack, { storedBytes: QUOTA, ingestBytesPerSecond: 30_000 });
    const recs = [randomUUID(), randomUUID()];
    const acked = new Map<string, number>(recs.map((r) => [r, 0]));
    const refusals: Res[] = [];
    // Four writers on two instances until each has seen a refusal, then a little longer.
    await Promise.all(
      [s1, s2, s1, s2].map(async (base, w) => {
        const rec = recs[w % 2];
        for (let refused = 0; refused < 3;) {
          const events = batch();
          const r = await post(base, t.publicKey, rec, events);
          if (r.status === 200) acked.set(rec, acked.get(rec)! + events.length);
          else if (r.status === 429) await new Promise((res) => setTimeout(res, 100));
          else {
            refused++;
            refusals.push(r);
            await new Promise((res) => setTimeout(res, 300));
          }
        }
      }),
    );
    for (const r of refusals) expectRefusal(r, 507, 'storedBytes');
    expect(refusals[0].text).toMatch(
      /^Storage quota exceeded: this tenant stores \d+ of its 60000 bytes \(limit storedBytes\); nothing of this batch was stored/,
    );
    const stored = [...acked.values()].reduce((a, b) => a + b, 0) * (BATCH_BYTES / 5);
    // Over the quota by at most what the other instance stored before its next read of the usage
    // (a second, plus the projection's lag, at the tenant's rate) and the batches in flight.
    expect(stored).toBeGreaterThanOrEqual(QUOTA);
    expect(stored).toBeLessThanOrEqual(QUOTA + 1.5 * 30_000 + 4 * BATCH_BYTES);
    for (const rec of recs) {
      const r = await api(`/recordings/${rec}/events`, { base: s2, key: t.secretKey });
      expect((r.json() as unknown[]).length).toBe(acked.get(rec));
    }
    // A WebSocket batch frame is refused with an error frame (507, the batch, the limit).
    const s = (await openSocket(s1, t.publicKey, recs[0])) as OpenedSocket;
    s.ws.send(JSON.stringify({ type: 'batch', batch: 'over', events: batch() }));
    const error = await pollUntil(
      async () => s.frames.find((f) => f.type === 'error'),
      (f) => f !== undefined,
      5000,
      20,
    );
    expect(error).toMatchObject({ status: 507, batch: 'over', retryAfter: 1 });
    expect(String(error!.message)).toContain('(limit storedBytes)');
    s.ws.terminate();
  });

  it('takes ingestion again once recordings are deleted', async () => {
    const t = await limitedTenant(stack, { storedBytes: 3 * BATCH_BYTES });
    const rec = randomUUID();
    for (let i = 0; i < 3; i++) expect((await post(s1, t.publicKey, rec, batch())).status).toBe(200);
    expectRefusal(await post(s1, t.publicKey, rec, batch()), 507, 'storedBytes');
    // The other instance refuses too once it has read the usage (what it stored meanwhile goes to the
    // same recording, so the deletion below frees it as well).
    await pollUntil(
      () => post(s2, t.publicKey, rec, batch()),
      (r) => r.status === 507,
      10_000,
      200,
    );
    expect((await api(`/recordings/${rec}`, { method: 'DELETE', base: s1, key: t.secretKey })).status).toBe(204);
    const after = randomUUID();
    const ok = await pollUntil(
      () => post(s2, t.publicKey, after, batch()),
      (r) => r.status === 200,
      15_000,
      250,
    );
    expect(ok.status).toBe(200);
    expect(((await api(`/recordings/${after}/events`, { base: s1, key: t.secretKey })).json() as unknown[]).length).toBe(5);
  }, 60_000);
});
