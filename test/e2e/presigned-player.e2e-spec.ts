// A presigned player page's eventsUrl may only name what the page's link opens: this recording's
// events, with the same link or another valid link of this recording and tenant. Tenant C holds a
// recording of its own and one under tenant A's recording id (ids are per tenant); neither can be
// shown under a link of A. With the private key the looser same-origin rule stays.
import { randomUUID } from 'node:crypto';
import { api, postEvents, sampleEvents } from '../harness/http';
import { testEnv } from '../harness/env';
import { createTenant, nowSeconds, presign, qs, tenantA, TenantCreds } from './auth-fixtures';

let A: TenantCreds;
let C: TenantCreds;
let recX: string;
let recY: string;
let recC: string;

beforeAll(async () => {
  A = tenantA();
  C = await createTenant('ev');
  [recX, recY, recC] = [randomUUID(), randomUUID(), randomUUID()];
  for (const id of [recX, recY]) expect((await postEvents(id, sampleEvents(5), A.publicKey)).status).toBe(200);
  for (const id of [recC, recX]) expect((await postEvents(id, sampleEvents(4), C.publicKey)).status).toBe(200);
});

const player = (id: string, link: Record<string, string>, eventsUrl?: string) =>
  api(`/recordings/${id}/player.html?${qs(link)}${eventsUrl === undefined ? '' : `&eventsUrl=${encodeURIComponent(eventsUrl)}`}`);

describe("a presigned player page's eventsUrl", () => {
  it('may name the events the link opens: with the same link, or another valid link of this recording', async () => {
    const link = presign(`/recordings/${recX}`, A);
    const other = presign(`/recordings/${recX}`, A, nowSeconds() + 120);
    for (const eventsUrl of [
      `events?${qs(link)}`,
      `/recordings/${recX}/events?${qs(link)}`,
      `${testEnv().baseUrl}/recordings/${recX}/events?${qs(link)}`,
      `../${recX.toUpperCase()}/events?${qs(other)}`,
      `events?${qs({ ...other, signature: other.signature.toUpperCase() })}`,
    ]) {
      const r = await player(recX, link, eventsUrl);
      expect([eventsUrl, r.status]).toEqual([eventsUrl, 200]);
    }
  });

  it("refuses with a 400 to show another tenant's recording, or anything else, under a link of tenant A", async () => {
    const link = presign(`/recordings/${recX}`, A);
    const cases: [string, string, RegExp][] = [
      ["tenant C's presigned events", `/recordings/${recC}/events?${qs(presign(`/recordings/${recC}`, C))}`, /this recording's events/],
      ["tenant C's recording under A's recording id", `events?${qs(presign(`/recordings/${recX}`, C))}`, /this page's tenant/],
      ["tenant C's, as an absolute URL", `${testEnv().baseUrl}/recordings/${recX}/events?${qs(presign(`/recordings/${recX}`, C))}`, /this page's tenant/],
      ["another of A's recordings, with its own link", `../${recY}/events?${qs(presign(`/recordings/${recY}`, A))}`, /this recording's events/],
      ["another of A's recordings' links on this one", `events?${qs(presign(`/recordings/${recY}`, A))}`, /signature is invalid/],
      ["A's replay", `/replays/k/v/events?${qs(presign('/replays/k/v', A))}`, /this recording's events/],
      ['no link', 'events', /incomplete/],
      ['an expired link', `events?${qs(presign(`/recordings/${recX}`, A, nowSeconds() - 5))}`, /expired/],
      ['a repeated parameter', `events?${qs(link)}&keyId=${A.signingKeyId}`, /repeats a parameter/],
      ['another route', `/openapi.json?${qs(link)}`, /this recording's events/],
    ];
    for (const [what, eventsUrl, reason] of cases) {
      const r = await player(recX, link, eventsUrl);
      expect([what, r.status]).toEqual([what, 400]);
      expect([what, r.json().message]).toEqual([what, expect.stringMatching(/^Invalid player query: eventsUrl: /)]);
      expect([what, r.json().message]).toEqual([what, expect.stringMatching(reason)]);
      expect(r.text).not.toContain(link.signature);
    }
    // Before the check, the page served tenant C's events: they do open on their own.
    expect((await api(`/recordings/${recC}/events?${qs(presign(`/recordings/${recC}`, C))}`)).status).toBe(200);
  });

  it('stays as it was with the private key: any same-origin URL without a key', async () => {
    const elsewhere = `/recordings/${recC}/events?${qs(presign(`/recordings/${recC}`, C))}`;
    expect((await api(`/recordings/${recX}/player.html?eventsUrl=${encodeURIComponent(elsewhere)}`, { key: A.secretKey })).status).toBe(200);
    expect((await api(`/recordings/${recX}/player.html?eventsUrl=${encodeURIComponent('https://evil.example.com/e')}`, { key: A.secretKey })).status).toBe(400);
  });
});
