// The narrow-filter plan: a filter whose smallest key/value range holds at most NARROW rows skips the
// time window; its few candidates come ordered by their start in `recordings` and are verified by id
// (the latest value of each filtered key) until the page and one more are kept. Exact, like every plan.
// A live-only listing takes this plan too: recent activity is a narrow set by nature. Activity filters
// are applied to the candidates in SQL, over their rows alone (ActivitySql.matching).
import type { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { ActivityFilters, ActivitySql, hasActivityFilters } from './activity.sql';
import type { LiveScope } from './live.sql';
import type { MetadataFilter } from './metadata-filter';
import { matchesLatest } from './metadata-filter.sql';
import { earliest, later, ListingPage, MARGIN, NO_DETAILS, PageDetails, PageRow, StartedRange, startedIn } from './listing-page.util';
import { MetadataRow, metadataById } from './recording.view';
import { readDetails } from './recordings.repository';
import { RecordingsSql } from './recordings.sql';
import { TimelineSql } from './recordings-timeline.sql';

/** A filter whose smallest key/value range holds at most this many rows is answered by id, not by time window. */
export const NARROW = 2000;

interface Verified {
  kept: PageRow[];
  /** Latest metadata of every verified recording. */
  metadata: MetadataRow[];
  /** Summaries fetched for the page as it would be if nothing were dropped. */
  prefetched?: { ids: Set<string>; details: Promise<PageDetails> };
}

/**
 * A filtered page from the filters' few candidates (the smallest key/value range holds at most NARROW
 * rows, or live-only), ordered by their start in `recordings`. undefined if they turn out to be many after all.
 */
export async function narrowPage(
  ch: ClickHouse,
  tenantId: string,
  filters: readonly MetadataFilter[],
  limit: number,
  offset: number,
  live?: LiveScope,
  started?: StartedRange,
  activity?: ActivityFilters,
): Promise<ListingPage | undefined> {
  const want = offset + limit + 1;
  const rows = await ch.rows<{ recording_id: string; first_ts: string }>(TimelineSql.starts(tenantId, filters, 2 * NARROW, live));
  if (rows.length >= 2 * NARROW) return undefined;
  // The range of starts on the candidates' true start: they are few.
  const inRange = rows.filter((r) => startedIn(Number(r.first_ts), started)).map((r) => ({ recording_id: r.recording_id, started_at: String(r.first_ts) }));
  // Activity filters: their rules over these few recordings alone, in one read.
  const passing =
    hasActivityFilters(activity) && inRange.length
      ? new Set(
          (
            await ch.rows<{ recording_id: string }>(
              ActivitySql.matching(
                tenantId,
                activity,
                inRange.map((r) => r.recording_id),
              ),
            )
          ).map((r) => r.recording_id),
        )
      : undefined;
  const candidates = passing ? inRange.filter((r) => passing.has(r.recording_id)) : inRange;
  return finish(ch, tenantId, await verify(ch, tenantId, filters, candidates, want, offset, limit), offset, limit);
}

/**
 * Verifies candidates (with their true start) in order until `want` are kept or none is left: one whose
 * latest metadata does not match the filters is dropped. The page's summaries are read meanwhile.
 */
async function verify(
  ch: ClickHouse,
  tenantId: string,
  filters: readonly MetadataFilter[],
  candidates: readonly PageRow[],
  want: number,
  offset: number,
  limit: number,
): Promise<Verified> {
  const kept: PageRow[] = [];
  const metadata: MetadataRow[] = [];
  let prefetched: Verified['prefetched'];
  for (let i = 0; kept.length < want && i < candidates.length;) {
    const chunk = candidates.slice(i, i + want - kept.length + MARGIN);
    i += chunk.length;
    if (!prefetched) {
      const guess = [...kept, ...chunk].slice(offset, offset + limit);
      if (guess.length > 0 && (guess.length === limit || i >= candidates.length)) {
        const guessIds = guess.map((r) => r.recording_id);
        prefetched = { ids: new Set(guessIds), details: later(readDetails(ch, tenantId, guessIds, earliest(guess), false)) };
      }
    }
    const meta = await ch.rows<MetadataRow>(
      RecordingsSql.metadata(
        tenantId,
        chunk.map((r) => r.recording_id),
      ),
    );
    const latest = metadataById(meta);
    metadata.push(...meta);
    kept.push(...chunk.filter((r) => matchesLatest(latest.get(r.recording_id), filters)));
  }
  return { kept: kept.slice(0, want), metadata, prefetched };
}

/** The page from the verified recordings: summaries from the prefetch where it guessed right, the rest read now. */
async function finish(ch: ClickHouse, tenantId: string, v: Verified, offset: number, limit: number): Promise<ListingPage> {
  const rows = v.kept.slice(offset, offset + limit + 1);
  const page = rows.slice(0, limit);
  const pre = v.prefetched ? await v.prefetched.details : NO_DETAILS;
  const missing = page.filter((r) => !v.prefetched?.ids.has(r.recording_id));
  const more = missing.length
    ? await readDetails(
        ch,
        tenantId,
        missing.map((r) => r.recording_id),
        earliest(missing),
        false,
      )
    : NO_DETAILS;
  return { rows, details: { summaries: [...pre.summaries, ...more.summaries], metadata: v.metadata } };
}
