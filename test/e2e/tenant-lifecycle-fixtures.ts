// Helpers of the tenant lifecycle spec: a tenant made through an instance's admin API, recordings
// that carry a unique marker in their events and metadata, and searches for any byte of a tenant in
// every stream of the NATS server (subjects, headers, payloads: the event stream and the KV buckets)
// and in every table of the ClickHouse database.
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import type { ClickHouse } from '../../src/infrastructure/clickhouse/clickhouse-client';
import { ident, sql } from '../../src/infrastructure/clickhouse/sql';
import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { api, Res, sampleEvents } from '../harness/http';
import type { PrivateStack } from '../harness/private-stack';
import { admin, createTenant, presign, qs, TenantCreds } from './auth-fixtures';

/** The admin API of a private stack's first instance. */
export const adminOn = (stack: PrivateStack, method: string, path: string, body?: unknown): Promise<Res> =>
  admin(method, path, body, { token: stack.adminToken, base: stack.url });

/** A tenant with a public key, a secret key and a signing key, made through a private stack's admin API. */
export const tenantOn = (stack: PrivateStack, prefix: string): Promise<TenantCreds> => createTenant(prefix, { token: stack.adminToken, base: stack.url });

/** Events of a small recording whose last event carries `marker` in its data. */
export const markedEvents = (marker: string, n = 6) => [
  ...sampleEvents(n - 1),
  { type: 5, timestamp: Date.now() + n, data: { tag: 'mark', payload: { marker } } },
];

/** Stores a recording with `marker` in an event and in a metadata value; returns its id. */
export async function storeMarked(base: string, t: TenantCreds, marker: string, n = 6): Promise<string> {
  const id = randomUUID();
  const post = (path: string, body: unknown) =>
    api(`/recordings/${id}/${path}`, { method: 'POST', base, key: t.publicKey, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const ev = await post('events', markedEvents(marker, n));
  const meta = await post('metadata', { note: marker, [`key-${marker}`]: 'x' });
  if (ev.status !== 200 || meta.status !== 200) throw new Error(`storing answered ${ev.status} / ${meta.status}: ${ev.text} ${meta.text}`);
  return id;
}

/** The ways a tenant's credentials reach the service (reading `rec`, writing elsewhere), each answered with a status and its message. */
export async function credentialAnswers(base: string, t: TenantCreds, rec: string) {
  const link = qs(presign(`/recordings/${rec}`, t));
  const body = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sampleEvents(3)) };
  const answers = {
    publicIngest: await api(`/recordings/${randomUUID()}/events`, { ...body, base, key: t.publicKey }),
    tokenIngest: await api(`/recordings/${randomUUID()}/events?token=${t.publicKey}`, { ...body, base }),
    secretIngest: await api(`/recordings/${randomUUID()}/events`, { ...body, base, key: t.secretKey }),
    metadata: await api(`/recordings/${randomUUID()}/metadata`, { ...body, body: '{"k":"v"}', base, key: t.publicKey }),
    secretRead: await api(`/recordings/${rec}/events`, { base, key: t.secretKey }),
    secretListing: await api('/recordings', { base, key: t.secretKey }),
    presignedRead: await api(`/recordings/${rec}/events?${link}`, { base }),
  };
  return Object.fromEntries(Object.entries(answers).map(([k, r]) => [k, `${r.status} ${r.status === 200 ? '' : r.text}`.trim()]));
}

const has = (bytes: Uint8Array | string, needles: readonly string[]) => needles.filter((n) => Buffer.from(bytes).includes(n));

/**
 * Every place any of `needles` appears in any stream of the server: the subjects a stream holds, and
 * each stored message's subject, headers and payload (read through an ordered consumer).
 */
export async function natsTraces(nats: NatsClient, needles: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const si of await nats.jsm.streams.list().next()) {
    const name = si.config.name;
    const info = await nats.jsm.streams.info(name, { subjects_filter: '>' });
    for (const subject of Object.keys(info.state.subjects ?? {})) for (const n of has(subject, needles)) found.push(`${name} subject ${subject}: ${n}`);
    if (info.state.messages === 0) continue;
    const consumer = await nats.js.consumers.get(name);
    const messages = await consumer.consume();
    for await (const m of messages) {
      const headers = m.headers ? [...m.headers.keys()].map((k) => `${k}: ${m.headers!.values(k).join(',')}`).join('\n') : '';
      for (const n of has(`${m.subject}\n${headers}`, needles)) found.push(`${name} #${m.seq} ${m.subject} (subject or headers): ${n}`);
      for (const n of has(m.data, needles)) found.push(`${name} #${m.seq} ${m.subject} (payload): ${n}`);
      if (m.info.pending === 0) break;
    }
    messages.stop();
  }
  return found;
}

/** Every table of the database (projection tables, rebuild leftovers, anything else) and the needles its rows hold. */
export async function clickhouseTraces(ch: ClickHouse, needles: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const { name } of await ch.rows<{ name: string }>(sql`SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name`)) {
    const text = JSON.stringify(await ch.rows<unknown>(sql`SELECT * FROM ${ident(name)}`));
    for (const n of has(text, needles)) found.push(`${name}: ${n}`);
  }
  return found;
}

/** Names of the tables of the database. */
export async function tableNames(ch: ClickHouse): Promise<string[]> {
  return (await ch.rows<{ name: string }>(sql`SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name`)).map((r) => r.name);
}

/** An ingestion WebSocket: the frames it receives, and its close code once closed. */
export async function openSocket(base: string, key: string): Promise<{ ws: WebSocket; frames: Record<string, unknown>[]; closed: Promise<number> }> {
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/recordings/${randomUUID()}/events/ws?token=${key}`);
  const frames: Record<string, unknown>[] = [];
  ws.on('message', (d) => frames.push(JSON.parse(String(d)) as Record<string, unknown>));
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return { ws, frames, closed };
}

/** The HTTP status a WebSocket upgrade is refused with (101 when it is accepted). */
export function upgradeStatus(base: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/recordings/${randomUUID()}/events/ws?token=${key}`);
    ws.once('unexpected-response', (_req, res) => (resolve(res.statusCode ?? 0), ws.terminate()));
    ws.once('open', () => (resolve(101), ws.close()));
    ws.once('error', (e) => (e.message.includes('Unexpected server response') ? undefined : reject(e)));
  });
}
