// Thumbnails rendered in the background once a recording has been idle (THUMBNAIL_IDLE_SECONDS), with
// real Chromium: the thumbnail is served without any earlier request for it. A private stack: the
// shared one keeps the sweep off (it would render every suite's recordings).
import { randomUUID } from 'node:crypto';
import { sampleEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { PrivateStack } from '../harness/private-stack';

jest.setTimeout(120_000);

let stack: PrivateStack;

beforeAll(async () => {
  stack = await PrivateStack.start({ env: { THUMBNAIL_IDLE_SECONDS: '2', THUMBNAIL_SCAN_SECONDS: '1' } });
  await stack.startService('service');
});

afterAll(async () => {
  await stack?.close();
});

it('renders the thumbnail of a recording idle for THUMBNAIL_IDLE_SECONDS without being asked, then serves it', async () => {
  const id = randomUUID();
  const posted = await stack.api(`/recordings/${id}/events`, {
    method: 'POST',
    key: stack.keys.publicKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(sampleEvents(6, Date.now() - 10_000)),
  });
  expect(posted.status).toBe(200);
  // Not asked for: the metrics say when the sweep rendered it (a GET would queue it on its own).
  const metricsKey = stack.serviceEnv.METRICS_TOKEN ? { key: stack.serviceEnv.METRICS_TOKEN } : {};
  await pollUntil(
    () => stack.api('/metrics', metricsKey),
    (r) => /^tapedeck_thumbnails_rendered_total [1-9]/m.test(r.text),
    60_000,
  );
  const metrics = (await stack.api('/metrics', metricsKey)).text;
  expect(metrics).toMatch(/^tapedeck_thumbnails_idle_queued_total [1-9]/m);
  const shot = await fetch(`${stack.url}/recordings/${id}/thumbnail`, { headers: { authorization: `Bearer ${stack.keys.secretKey}` } });
  expect(shot.status).toBe(200);
  expect(shot.headers.get('content-type')).toBe('image/webp');
  const bytes = Buffer.from(await shot.arrayBuffer());
  expect(bytes.subarray(8, 12).toString()).toBe('WEBP');
});
