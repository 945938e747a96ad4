// includeSignedUrls: the links the listing and the detail hand out open the recording with no other
// credential, and nothing else; a tampered link is refused with 403.
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { presign, tenantA } from './auth-fixtures';
import { testEnv } from '../harness/env';
import { api, postEvents, sampleEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';

const run = `links-${randomUUID()}`;
const secret = () => testEnv().secretKey;

async function record(n: number): Promise<string> {
  const id = randomUUID();
  expect((await postEvents(id, sampleEvents(n, Date.now() - 30_000))).status).toBe(200);
  const meta = await api(`/recordings/${id}/metadata`, {
    method: 'POST',
    key: testEnv().publicKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ run }),
  });
  expect(meta.status).toBe(200);
  return id;
}

interface Item {
  recordingId: string;
  links: Record<string, string>;
}

describe('signed links', () => {
  let first: string;
  let second: string;
  let items: Item[];
  let expiresAt: number;

  beforeAll(async () => {
    first = await record(6);
    second = await record(9);
    const r = await pollUntil(
      () => api(`/recordings?metadata[run]=${run}&includeSignedUrls=true`, { key: secret() }),
      (x) => x.status === 200 && x.json().recordings.length === 2,
      20_000,
    );
    items = r.json().recordings;
    expiresAt = r.json().signedUrlsExpireAt;
  });

  const linkOf = (id: string, name: string) => items.find((i) => i.recordingId === id)!.links[name];

  it("signs every read link of each recording with the tenant's current key, one expiry for the response", () => {
    const now = Math.floor(Date.now() / 1000);
    expect(expiresAt).toBeGreaterThan(now + 3500);
    expect(expiresAt).toBeLessThanOrEqual(now + 3600);
    for (const id of [first, second]) {
      const q = new URL(linkOf(id, 'eventsSigned'), 'http://x').searchParams;
      expect(Object.fromEntries(q)).toEqual(presign(`/recordings/${id}`, tenantA(), expiresAt));
      expect(linkOf(id, 'eventsSigned')).toBe(`/recordings/${id}/events?${q}`);
      expect(linkOf(id, 'selfSigned')).toBe(`/recordings/${id}?${q}`);
      expect(linkOf(id, 'playerSigned')).toBe(`/recordings/${id}/player.html?${q}`);
      expect(linkOf(id, 'screenshotSigned')).toBe(`/recordings/${id}/screenshot.png?${q}`);
    }
  });

  it('opens the events with no other credential, equal to a private-key read', async () => {
    const signed = await api(linkOf(first, 'eventsSigned'));
    expect(signed.status).toBe(200);
    const direct = await api(`/recordings/${first}/events`, { key: secret() });
    expect(signed.json()).toEqual(direct.json());
    expect(signed.json()).toHaveLength(6);
  });

  it('opens the recording detail, which will not mint new links for a link holder', async () => {
    const r = await api(linkOf(second, 'selfSigned'));
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ recordingId: second, projected: true, eventCount: 9, metadata: { run } });
    expect(r.json().links.eventsSigned).toBeUndefined();
    const more = await api(`${linkOf(second, 'selfSigned')}&includeSignedUrls=true`);
    expect(more.status).toBe(401);
    expect(more.headers.get('content-type')).toMatch(/text\/plain/);
  });

  it("refuses a tampered signature, a changed expiry and another recording's signature with 403", async () => {
    const url = new URL(linkOf(first, 'eventsSigned'), 'http://x');
    const sig = url.searchParams.get('signature')!;
    const tampered = new URLSearchParams(url.searchParams);
    tampered.set('signature', (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1));
    const later = new URLSearchParams(url.searchParams);
    later.set('expires', String(expiresAt + 1));
    for (const path of [
      `/recordings/${first}/events?${tampered}`,
      `/recordings/${first}/events?${later}`,
      `/recordings/${second}/events?${url.searchParams}`,
      `/recordings/${second}?${url.searchParams}`,
    ]) {
      const r = await api(path);
      expect(r.status).toBe(403);
      expect(r.headers.get('content-type')).toMatch(/text\/plain/);
    }
  });

  it('does not open the listing itself', async () => {
    const q = new URL(linkOf(first, 'eventsSigned'), 'http://x').search;
    expect((await api(`/recordings${q}`)).status).toBe(401);
  });

  it('adds signed links to the detail for the private key', async () => {
    const r = await api(`/recordings/${first}?includeSignedUrls=true`, { key: secret() });
    expect(r.status).toBe(200);
    const body = r.json();
    expect(body.signedUrlsExpireAt).toBeGreaterThan(Math.floor(Date.now() / 1000));
    expect((await api(body.links.eventsSigned)).status).toBe(200);
  });
});

/** GET with the path sent exactly as written, as curl and other RFC 3986 clients do (fetch would resolve %2E%2E). */
function rawGet(pathAndQuery: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(testEnv().baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path: pathAndQuery, method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('replay links of a "." or ".." value', () => {
  const prop = `dots-${randomUUID()}`;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    for (const value of ['.', '..']) {
      ids[value] = randomUUID();
      expect((await postEvents(ids[value], sampleEvents(4, Date.now() - 30_000))).status).toBe(200);
      const meta = await api(`/recordings/${ids[value]}/metadata`, {
        method: 'POST',
        key: testEnv().publicKey,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ [prop]: value }),
      });
      expect(meta.status).toBe(200);
    }
  });

  it('writes the value as %2E or %2E%2E, and every link opens that replay alone', async () => {
    const r = await pollUntil(
      () => api(`/replays/${prop}?includeSignedUrls=true`, { key: secret() }),
      (x) => x.status === 200 && x.json().replays.length === 2,
      20_000,
    );
    const items: { replayValue: string; links: Record<string, string> }[] = r.json().replays;
    for (const [value, segment] of [
      ['.', '%2E'],
      ['..', '%2E%2E'],
    ]) {
      const links = items.find((i) => i.replayValue === value)!.links;
      expect(links.self).toBe(`/replays/${prop}/${segment}`);
      expect(links.events).toBe(`/replays/${prop}/${segment}/events`);
      expect(links.eventsSigned.startsWith(`/replays/${prop}/${segment}/events?`)).toBe(true);
      const events = await rawGet(links.eventsSigned);
      expect(events.status).toBe(200);
      expect(JSON.parse(events.body).map((e: { recordingId: string }) => e.recordingId)).toEqual(Array(4).fill(ids[value]));
      const replay = await rawGet(links.selfSigned);
      expect(replay.status).toBe(200);
      expect(JSON.parse(replay.body).metadata).toMatchObject({ [prop]: value });
    }
  });
});
