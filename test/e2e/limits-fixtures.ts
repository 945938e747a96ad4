// Two service instances on one nats-server and one ClickHouse (a private stack, as behind a load
// balancer), tenants with their own limits made through the admin API, and the clients the
// per-tenant limit specs drive them with.
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { api, Res, sampleEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { PrivateStack } from '../harness/private-stack';

export interface LimitedTenant {
  tenantId: string;
  publicKey: string;
  secretKey: string;
}

/** A private stack with two instances; `env` on both (per-tenant defaults are off unless given). */
export async function twoInstances(env: Record<string, string> = {}): Promise<PrivateStack> {
  const stack = await PrivateStack.start({
    env: {
      TENANT_INGEST_EVENTS_PER_SECOND: '0',
      TENANT_INGEST_BYTES_PER_SECOND: '0',
      TENANT_WEBSOCKETS: '0',
      TENANT_READ_BYTES_PER_SECOND: '0',
      TENANT_STORED_BYTES: '0',
      TENANT_RENDERS: '0',
      TENANT_RENDERS_PER_SECOND: '0',
      TENANT_LIVE_VIEWERS: '0',
      TENANT_BURST_SECONDS: '1',
      // The contention guard reads the machine's CPU pressure: the limit specs would depend on the CI's load.
      TENANT_CPU_PRESSURE: '0',
      ...env,
    },
  });
  try {
    await Promise.all([stack.startService('limits-1'), stack.startService('limits-2')]);
  } catch (e) {
    await stack.close();
    throw e;
  }
  return stack;
}

export function adminOn(stack: PrivateStack, base: string, method: string, path: string, body?: unknown): Promise<Res> {
  return api(`/admin${path}`, {
    method,
    base,
    key: stack.adminToken,
    ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
}

/** A new tenant with its own limits, set through the first instance and seen by every instance. */
export async function limitedTenant(stack: PrivateStack, limits: Record<string, number>): Promise<LimitedTenant> {
  const [first, ...others] = stack.services.map((s) => s.url);
  const tenantId = `lim_${randomBytes(4).toString('hex')}`;
  const ok = async (r: Promise<Res>, status: number) => {
    const res = await r;
    if (res.status !== status) throw new Error(`admin call answered ${res.status}: ${res.text}`);
    return res.json();
  };
  await ok(adminOn(stack, first, 'POST', '/tenants', { id: tenantId }), 201);
  const publicKey = (await ok(adminOn(stack, first, 'POST', `/tenants/${tenantId}/keys`, { kind: 'public' }), 201)).key as string;
  const secretKey = (await ok(adminOn(stack, first, 'POST', `/tenants/${tenantId}/keys`, { kind: 'secret' }), 201)).key as string;
  await ok(adminOn(stack, first, 'PATCH', `/tenants/${tenantId}/limits`, limits), 200);
  for (const base of others) {
    await pollUntil(
      () => adminOn(stack, base, 'GET', `/tenants/${tenantId}/limits`),
      (r) => r.status === 200 && Object.entries(limits).every(([k, v]) => r.json().limits[k] === v),
      5000,
      20,
    );
  }
  return { tenantId, publicKey, secretKey };
}

/** POSTs one batch (its own Idempotency-Key) to `base`. */
export function post(base: string, key: string, recordingId: string, events: unknown[], idempotencyKey = randomBytes(8).toString('hex')): Promise<Res> {
  return api(`/recordings/${recordingId}/events`, {
    method: 'POST',
    base,
    key,
    headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify(events),
  });
}

/** `n` incremental events of about `bytesEach` bytes each (a text mutation padded to size). */
export function paddedEvents(n: number, bytesEach: number, start = Date.now()) {
  const [meta, snapshot] = sampleEvents(2, start);
  const pad = 'x'.repeat(Math.max(0, bytesEach - 110));
  const rest = Array.from({ length: Math.max(0, n - 2) }, (_, i) => ({
    type: 3,
    timestamp: start + 2 + i,
    data: { source: 0, texts: [{ id: 5, value: pad }], attributes: [], removes: [], adds: [] },
  }));
  return [meta, snapshot, ...rest].slice(0, n);
}

/** Checks a refusal: the status, a Retry-After of whole seconds (at least 1), and a text message naming the limit. */
export function expectRefusal(r: Res, status: number, limit: string): void {
  expect({ status: r.status, type: r.headers.get('content-type') }).toEqual({ status, type: 'text/plain; charset=utf-8' });
  expect(r.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  expect(r.text).toContain(`(limit ${limit})`);
}

export interface OpenedSocket {
  ws: WebSocket;
  frames: Record<string, unknown>[];
  closed: Promise<number>;
}

/** Opens an ingestion WebSocket, or resolves the refused upgrade's status, headers and body. */
export function openSocket(base: string, key: string, recordingId: string): Promise<OpenedSocket | { status: number; retryAfter?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/recordings/${recordingId}/events/ws?token=${key}`);
    const frames: Record<string, unknown>[] = [];
    ws.on('message', (d) => frames.push(JSON.parse(String(d)) as Record<string, unknown>));
    const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
    ws.on('open', () => resolve({ ws, frames, closed }));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, body }));
    });
    ws.on('error', (e) => reject(e));
  });
}
