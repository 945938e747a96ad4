// The event stream at its size limit (STREAM_MAX_BYTES, discard new): a batch large enough to be
// stored in several messages gets some of them refused. The client gets a 503 that says the stream
// is full, and what was stored of the batch is neither read back nor counted in listings and
// statistics; the same batch retried once there is room is stored and counted once.
import { randomUUID } from 'node:crypto';
import { api, sampleEvents } from '../../harness/http';
import { pollUntil } from '../../harness/poll-until';
import { PrivateStack } from '../../harness/private-stack';

const MB = 1024 * 1024;

describe('a stream at STREAM_MAX_BYTES', () => {
  let stack: PrivateStack;
  beforeAll(async () => {
    stack = await PrivateStack.start({ env: { STREAM_MAX_BYTES: String(Math.round(2.5 * MB)) } });
    await stack.startService('service');
  }, 120_000);
  afterAll(() => stack?.close());

  const post = (id: string, body: string, key: string, base = stack.url) =>
    api(`/recordings/${id}/events`, {
      method: 'POST',
      key: stack.keys.publicKey,
      base,
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body,
    });

  it('refuses a batch it holds only part of with a 503 that names the cause; the part is neither read nor counted', async () => {
    const big = randomUUID();
    // About 4 MB: four messages, of which the stream has room for two.
    const events = sampleEvents(40, Date.now() - 60_000).map((e, i) => ({ ...e, data: { ...e.data, pad: `${i}:${'x'.repeat(100_000)}` } }));
    const body = JSON.stringify(events);
    const refused = await post(big, body, 'big-1');
    expect(refused.status).toBe(503);
    expect(refused.text).toMatch(/full/i);

    // A small write still fits; once it is projected, so is everything stored before it.
    const small = randomUUID();
    expect((await post(small, JSON.stringify(sampleEvents(3, Date.now())), 'small-1')).status).toBe(200);
    await pollUntil(
      () => stack.api(`/recordings/${small}`),
      (r) => r.status === 200 && r.json().projected === true,
      20_000,
      200,
    );

    const detail = await stack.api(`/recordings/${big}`);
    expect(detail.status).toBe(200); // JetStream holds part of it
    expect(detail.json()).toMatchObject({ projected: false, eventCount: 0 });
    expect(JSON.parse((await stack.api(`/recordings/${big}/events`)).text)).toEqual([]);
    const listed = (await stack.api('/recordings?limit=100')).json().recordings as { recordingId: string }[];
    expect(listed.map((r) => r.recordingId)).toEqual([small]);
    const stats = (await stack.api(`/statistics?from=${Date.now() - 86_400_000}`)).json();
    expect(stats.totals).toMatchObject({ recordings: 1, events: 3 });

    // Room again (the limit raised, as an operator would): the retry completes the batch, counted once.
    await stack.services[0].stop();
    const roomy = await stack.startService('roomy', { STREAM_MAX_BYTES: '-1' });
    expect((await post(big, body, 'big-1', roomy.url)).status).toBe(200);
    const whole = await pollUntil(
      () => api(`/recordings/${big}`, { key: stack.keys.secretKey, base: roomy.url }),
      (r) => r.status === 200 && r.json().projected === true,
      20_000,
      200,
    );
    expect(whole.json().eventCount).toBe(40);
    expect(JSON.parse((await api(`/recordings/${big}/events`, { key: stack.keys.secretKey, base: roomy.url })).text)).toHaveLength(40);
  }, 90_000);
});
