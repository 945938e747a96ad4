// The listing's plans with activity filters (window, narrow, deep) against the whole-tenant SQL of the
// same filters, on a clickhouse-server of its own: recordings spread over an hour, some of them long
// enough to start before the first window and still have batches in it (the window's edge), the
// projections' own rows from the projectors' pure functions. Every page must equal the whole-tenant one.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { batchMessage, recordingBatch } from '../../bench/listing.bench';
import { ClickHouse } from '../../src/infrastructure/clickhouse/clickhouse-client';
import { loadMigrations, migrate } from '../../src/infrastructure/clickhouse/migrator';
import { ident, Sql, sql } from '../../src/infrastructure/clickhouse/sql';
import type { ManagedProcess } from '../../src/local/processes';
import { applyActivityMessages } from '../../src/projections/activity-projection';
import type { ProjectionMessage } from '../../src/projections/projection';
import { applyRecordingMessages } from '../../src/projections/recording-projection';
import { ActivityRepository } from '../../src/read-model/activity.repository';
import { ActivityFilters, ActivitySql, windowScope } from '../../src/read-model/activity.sql';
import { click, meta, relabelButton, snapshot } from '../../src/domain/activity/testing/activity-fixtures';
import { ListingPlanner } from '../../src/read-model/listing.planner';
import type { MetadataFilter } from '../../src/read-model/metadata-filter';
import type { SummaryRow } from '../../src/read-model/recording.view';
import { RecordingsSql } from '../../src/read-model/recordings.sql';
import { startTestClickHouse } from '../harness/clickhouse';

jest.setTimeout(120_000);

const TENANT = 'plans';
const N = 160;
const SPACING_MS = 20_000;
const id = (i: number) => {
  const h = createHash('sha256').update(`plans ${i}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

let dir: string;
let server: ManagedProcess & { httpPort: number };
let ch: ClickHouse;

/** Recording i starts at t0 + i * SPACING_MS; every 6th one's later batches come 15 minutes later (it spans the first window's edge). */
async function seed() {
  const t0 = Date.now() - N * SPACING_MS;
  const messages: ProjectionMessage[] = [];
  for (let b = 0; b < 3; b++)
    for (let i = 0; i < N; i++) {
      const shift = i % 6 === 1 && b > 0 ? 15 * 60_000 : 0;
      const events = recordingBatch(i, b, t0 + i * SPACING_MS).map((e) => ({ ...e, timestamp: e.timestamp + shift }));
      messages.push(batchMessage(messages.length + 1, TENANT, id(i), events));
    }
  for (const out of [applyRecordingMessages(messages), applyActivityMessages(messages)])
    for (const [table, rows] of Object.entries(out.rows)) if (rows.length) await ch.insert(table, rows);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tapedeck-activity-plans-'));
  server = await startTestClickHouse({ dir });
  ch = new ClickHouse({
    CLICKHOUSE_URL: `http://127.0.0.1:${server.httpPort}`,
    CLICKHOUSE_USER: 'default',
    CLICKHOUSE_PASSWORD: '',
    CLICKHOUSE_DATABASE: 'plans_test',
  });
  await ch.ensureDatabase();
  await migrate(ch);
  await seed();
});

afterAll(async () => {
  await ch?.close();
  await server?.stop('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const CASES: [string, ActivityFilters][] = [
  ['clickedText', { clickedText: 'pay now' }],
  ['hasErrors', { hasErrors: true }],
  ['no errors', { hasErrors: false }],
  ['errorText', { errorText: 'x7 is' }],
  ['rage clicks', { hasRageClicks: true }],
  ['dead clicks', { hasDeadClicks: true }],
  ['no dead clicks', { hasDeadClicks: false }],
  ['long', { minDuration: 60_000 }],
  ['short', { maxDuration: 60_000 }],
  ['active time', { minActiveTime: 10_000, maxActiveTime: 11_000 }],
  ['path prefix and dead clicks', { urls: [{ value: '/p/1', match: 'prefix', on: 'path' }], hasDeadClicks: true }],
];

describe('listing plans with activity filters', () => {
  it.each(CASES)('%s: every page of every plan equals the whole-tenant SQL', async (_, activity) => {
    const planner = new ListingPlanner(ch);
    for (const filters of [[], [{ key: 'plan', value: 'free' }]] as MetadataFilter[][]) {
      const whole = (await ch.rows<{ recording_id: string }>(RecordingsSql.page({ tenantId: TENANT, filters, activity }, N, 0))).map((r) => r.recording_id);
      // The edge is reached: some matching recordings started before the first window and end in it.
      for (const [limit, offset] of [
        [5, 0],
        [5, 5],
        [7, 20],
        [50, 0],
      ]) {
        for (let again = 0; again < 2; again++) {
          // Twice: the second page starts from the density the first one remembered.
          const page = await planner.page(TENANT, { filters, activity, limit, offset });
          expect(page.rows.map((r) => r.recording_id)).toEqual(whole.slice(offset, offset + limit + 1));
        }
      }
    }
  });

  it.each(CASES)('%s: a range of starts in the past gives the whole-tenant page of that range', async (_, activity) => {
    const planner = new ListingPlanner(ch);
    const now = Date.now();
    for (const started of [{ from: now - 40 * 60_000, to: now - 20 * 60_000 }, { to: now - 30 * 60_000 }]) {
      const whole = (await ch.rows<{ recording_id: string }>(RecordingsSql.page({ tenantId: TENANT, filters: [], activity, window: started }, N, 0))).map(
        (r) => r.recording_id,
      );
      for (const offset of [0, 5]) {
        const page = await planner.page(TENANT, { filters: [], activity, started, limit: 5, offset });
        expect(page.rows.map((r) => r.recording_id)).toEqual(whole.slice(offset, offset + 6));
      }
    }
  });

  it("gives every recording's listing summary from the time-sorted rows as its timeline reads it by id", async () => {
    const activity = new ActivityRepository(ch);
    const listed = await ch.rows<SummaryRow>(RecordingsSql.summaries(TENANT, [...Array(N).keys()].map(id)));
    expect(listed).toHaveLength(N);
    const spans = new Map(listed.map((s) => [s.recording_id, { first: Number(s.started_at), last: Number(s.ended_at) }]));
    // A page's worth at a time, as the listing asks (its spans merge into a few ranges).
    for (let i = 0; i < N; i += 50) {
      const page = new Map([...spans].slice(i, i + 50));
      const summaries = await activity.summaries(TENANT, page);
      for (const recordingId of page.keys()) {
        const a = (await activity.recording(TENANT, recordingId))!.activity;
        expect([recordingId, summaries.get(recordingId)]).toEqual([
          recordingId,
          { pages: a.pageViews.length, clicks: a.clicks.length, errors: a.errors.length, activeTime: a.activeTime },
        ]);
      }
    }
  });

  it("backfills recording_activity_timeline (migration 009) with the projector's own rows", async () => {
    const inserts = loadMigrations()
      .find((m) => m.version === 9)!
      .statements.filter((s) => s.startsWith('INSERT'));
    expect(inserts).toHaveLength(3);
    await ch.command(sql`CREATE TABLE backfilled AS recording_activity_timeline`);
    for (const s of inserts) await ch.command(new Sql(s.replace('INSERT INTO recording_activity_timeline', 'INSERT INTO backfilled')));
    const rows = (table: string) =>
      ch.rows<Record<string, unknown>>(sql`SELECT * FROM ${ident(table)} FINAL ORDER BY tenant_id, kind, batch_ts, recording_id, seq, idx, node_id`);
    const projected = await rows('recording_activity_timeline');
    expect(projected.length).toBeGreaterThan(N * 3);
    expect(await rows('backfilled')).toEqual(projected);
  });

  it("clickedText takes the label of the click's node latest before it, and none from before the click's page, in the window as over the tenant", async () => {
    const tenant = 'labels';
    const t0 = Date.now() - 5 * 60_000;
    const recordings: Record<string, unknown[][]> = {
      // "Pay now" on the page, clicked: found by "pay".
      plain: [[meta(t0, 'https://shop.test/a'), snapshot(t0 + 1)], [click(t0 + 2000, 7)]],
      // The button reads "Cancel order" by the click: found by "cancel", not by "pay".
      relabelled: [[meta(t0, 'https://shop.test/b'), snapshot(t0 + 1)], [relabelButton(t0 + 1000, 'Cancel order')], [click(t0 + 2000, 7)]],
      // A page load between the label and the click: node ids start again, the click has no label.
      reloaded: [[meta(t0, 'https://shop.test/c'), snapshot(t0 + 1)], [meta(t0 + 1000, 'https://shop.test/d')], [click(t0 + 2000, 7)]],
      // Relabelled after the click: the click keeps "Pay now".
      later: [[meta(t0, 'https://shop.test/e'), snapshot(t0 + 1)], [click(t0 + 2000, 7)], [relabelButton(t0 + 3000, 'Cancel order')]],
    };
    const ids = Object.fromEntries(Object.keys(recordings).map((k, i) => [k, id(1000 + i)]));
    const messages: ProjectionMessage[] = [];
    for (const [k, batches] of Object.entries(recordings))
      for (const events of batches) messages.push(batchMessage(10_000 + messages.length, tenant, ids[k], events as never));
    const out = applyActivityMessages(messages);
    for (const [table, rows] of Object.entries(out.rows)) if (rows.length) await ch.insert(table, rows);
    const named = (rows: { recording_id: string }[]) =>
      rows
        .map((r) => Object.keys(ids).find((k) => ids[k] === r.recording_id))
        .sort()
        .join(',');
    for (const [text, expected] of [
      ['pay', 'later,plain'],
      ['cancel', 'relabelled'],
    ]) {
      const whole = named(await ch.rows(ActivitySql.clickedText(tenant, text)));
      const window = named(await ch.rows(ActivitySql.clickedText(tenant, text, windowScope(t0 - 1000, sql`SELECT 1`))));
      expect([text, whole, window]).toEqual([text, expected, expected]);
    }
  });

  it('holds recordings that span the first window edge, matching and not', async () => {
    const spanning = await ch.rows<{ n: string }>(RecordingsSql.page({ tenantId: TENANT, filters: [], activity: { minDuration: 15 * 60_000 } }, N, 0));
    expect(spanning.length).toBeGreaterThan(10);
  });
});
