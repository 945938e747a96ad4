// Listing pages read from time-sorted data, so a page touches the newest few thousand rows instead of
// every row of the tenant. A window [since, ∞) of recording_timeline (listing-window.util.ts) holds every
// batch of each recording that started at or after `since`; it is widened until it holds offset + limit
// + 1 kept recordings (or everything). A recording of the window that started before it ranks after
// every kept one and is dropped (the edge check). Up to VERIFY_MAX recordings: the window's top ones
// (filtered: of the filters' key/value ranges) come with their summaries in one read and are verified
// by id (edge check, and the latest value of each filtered key: the rule of matchingRecordingsSql)
// while their metadata is read. Deeper unfiltered pages are cut in SQL with an edge check of the whole
// window beside them; a narrow filter skips the window (listing-narrow.plan.ts), and so does `live=true`
// (recent activity: few recordings, by the server's clock of storing, live.sql.ts). Activity filters
// (activity.sql.ts) use `recordings` FINAL with their id sets in SQL. `live=false` runs the
// window plans with liveness checked on the summaries they read, or in SQL on deep pages.
// A range of starts (`started`, [from, to)) clamps the windows: they end at `to` and stop widening at
// `from`, so a narrow range reads little; the narrow plan drops its candidates outside it, and the
// plans on `recordings` FINAL (deep pages, activity filters) have it in SQL.
// The planner remembers, per tenant and filter set, the filters' counts and the last page's density:
// hints that choose a plan and size a window, never what a page holds (every plan answers exactly).
import { Injectable } from '@nestjs/common';
import { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { ActivityFilters, hasActivityFilters } from './activity.sql';
import { isLive, type LiveScope } from './live.sql';
import type { MetadataFilter } from './metadata-filter';
import { FilterCounts, filterCounts } from './metadata-filter.counts';
import { candidateRecordingsSql, matchesLatest } from './metadata-filter.sql';
import { narrowPage, NARROW } from './listing-narrow.plan';
import { earliest, later, ListingPage, MARGIN, PageDetails, PageRow, ranksAfter, StartedRange } from './listing-page.util';
import { Density, densityOf, firstWindow, widen, Window } from './listing-window.util';
import { fromReadModel } from './read-model-errors.util';
import { MetadataRow, metadataById, SummaryRow } from './recording.view';
import { readDetails } from './recordings.repository';
import { RecordingsSql } from './recordings.sql';
import { TimelineSql } from './recordings-timeline.sql';

/** What a listing page asks for: metadata filters (AND), optionally only live or only finished recordings, page size and offset. */
export interface ListingQuery {
  filters: readonly MetadataFilter[];
  /** Activity filters (AND): applied by every plan, over its candidates (window, narrow set) when it has some. */
  activity?: ActivityFilters;
  live?: LiveScope;
  /** Only recordings whose first event time is in [from, to). */
  started?: StartedRange;
  limit: number;
  offset: number;
  /**
   * Told the likely page (a window's top, before its checks) as soon as it is read, so a caller can
   * read what it needs of those recordings (activity summaries) beside the checks instead of after
   * them. The final page may differ (a recording failed a check): it is told again after a re-read.
   */
  onLikelyPage?: (rows: readonly SummaryRow[]) => void;
}

/** Above this many recordings to verify (offset + limit + 1), a filtered page is not verified id by id. */
export const VERIFY_MAX = 500;

// How many times the wanted recordings a first window holds, by the last page's density: more than 1
// absorbs changes of density; windows whose cost grows with their size (deep pages, whose edge check
// reads every recording of the window; filtered pages, whose window also holds every recording that
// does not match) get less than the default 2.
const LEAN_SLACK = 1.25;
/** How many tenant and filter sets each memory holds; the oldest entry goes first. */
const MEMORY_KEYS = 10_000;
/** How long filter counts are trusted: a stale count costs time, never correctness. */
const PLAN_TTL_MS = 30_000;

const memoryKey = (tenantId: string, filters: readonly MetadataFilter[], live?: LiveScope, activity?: ActivityFilters) =>
  `${tenantId}\u0000${JSON.stringify(filters)}${live ? `\u0000${live.live}` : ''}${hasActivityFilters(activity) ? `\u0000${JSON.stringify(activity)}` : ''}`;

/** How many listings' last tops the planner keeps (each up to a few hundred ids). */
const TOP_KEYS = 1_000;
/** A listing's checks are guessed while at least this share of its top stays from one read to the next. */
const MIN_OVERLAP = 0.5;

/** Sets `key`, dropping the oldest entry when the map is full. */
function remembered<V>(memory: Map<string, V>, key: string, value: V, max = MEMORY_KEYS): void {
  if (memory.size >= max && !memory.has(key)) memory.delete(memory.keys().next().value as string);
  memory.set(key, value);
}

/**
 * The checks of a listing's last top read beside the next window instead of after it: its edge check
 * (against the new window's start) and metadata, of recordings the new window will likely return.
 */
interface Guess {
  ids: ReadonlySet<string>;
  started: Promise<{ recording_id: string }[]>;
  metadataIds: ReadonlySet<string>;
  metadata: Promise<MetadataRow[]>;
}

@Injectable()
export class ListingPlanner {
  // From the last page: milliseconds per kept recording and the newest start seen. The next first
  // window ends at that start (sized from the density), not at the clock: a window [since, ∞) is exact
  // for any since, and a tenant idle for an hour would otherwise start from an empty one.
  private readonly density = new Map<string, Density>();
  // filterCounts when something can match. "Nothing matches" is never remembered (a write may make it match).
  private readonly counts = new Map<string, { counts: FilterCounts; at: number }>();
  // The last page's top (the recordings its window returned) and page, per tenant and filter set: a
  // listing read again (a console refreshing it, a poll) mostly returns them again, so their checks
  // go beside its window read (Guess). A hint: a check is used only for a recording the new window
  // returns, and it is read when the window is, as fresh as a check read after it.
  // `overlap`: the share of that top the previous one held; a listing whose top changes between
  // reads (a busy tenant's newest, polled) gets no guess, whose reads would mostly be wasted.
  private readonly lastTop = new Map<string, { top: string[]; page: string[]; overlap?: number }>();
  /** Off: the checks are read after the window only (for measurements, bench/activity-filters.harness.ts). */
  guessChecks = true;

  constructor(private readonly ch: ClickHouse) {}

  /**
   * The page's recordings (limit + 1) and their details. From time-sorted data unless a filtered page
   * lies deeper than VERIFY_MAX: then from `recordings` FINAL and the filter SQL.
   */
  page(tenantId: string, q: ListingQuery): Promise<ListingPage> {
    return fromReadModel(this.plan(tenantId, q));
  }

  private async plan(tenantId: string, { filters, limit, offset, live, activity, started, onLikelyPage }: ListingQuery): Promise<ListingPage> {
    const shallow = offset + limit + 1 <= VERIFY_MAX;
    if (filters.length === 0 && !live && !hasActivityFilters(activity)) {
      if (!started) return this.newestPage(tenantId, limit, offset, Date.now(), onLikelyPage);
      return shallow
        ? this.windowPage(tenantId, [], limit, offset, Date.now(), undefined, started, undefined, onLikelyPage)
        : this.deepPage(tenantId, [], limit, offset, undefined, undefined, started);
    }
    const counts = filters.length ? await this.filterCounts(tenantId, filters) : { filters: [], smallest: Infinity };
    if (!counts) return { rows: [], details: { summaries: [], metadata: [] } };
    // Activity filters go with every plan: over the narrow candidates, over the window's recordings
    // (their cost bounded by the window, not the tenant), or beside the filters of a deep page.
    // Live only: its candidates are few (recent activity) whatever the filters and the depth.
    if (live?.live)
      return (
        (await narrowPage(this.ch, tenantId, counts.filters, limit, offset, live, started, activity)) ??
        this.deepPage(tenantId, counts.filters, limit, offset, live, activity, started)
      );
    if (shallow) {
      const narrow = counts.smallest <= NARROW ? await narrowPage(this.ch, tenantId, counts.filters, limit, offset, live, started, activity) : undefined;
      return narrow ?? this.windowPage(tenantId, counts.filters, limit, offset, Date.now(), live, started, activity, onLikelyPage);
    }
    return this.deepPage(tenantId, counts.filters, limit, offset, live, activity, started);
  }

  /** A page from `recordings` FINAL with the filters and live scope in SQL: deep filtered pages, and many live recordings. */
  private async deepPage(
    tenantId: string,
    filters: readonly MetadataFilter[],
    limit: number,
    offset: number,
    live?: LiveScope,
    activity?: ActivityFilters,
    started?: StartedRange,
  ): Promise<ListingPage> {
    const rows = await this.ch.rows<PageRow>(RecordingsSql.page({ tenantId, filters, live, activity, window: started }, limit, offset));
    return {
      rows,
      details: await readDetails(
        this.ch,
        tenantId,
        rows.slice(0, limit).map((r) => r.recording_id),
        undefined,
        true,
      ),
    };
  }

  /** filterCounts, remembered for PLAN_TTL_MS per tenant and filter set when something can match. */
  private async filterCounts(tenantId: string, filters: readonly MetadataFilter[], now = Date.now()): Promise<FilterCounts | null> {
    const key = memoryKey(tenantId, filters);
    const hit = this.counts.get(key);
    if (hit && now - hit.at < PLAN_TTL_MS) return hit.counts;
    const counts = await filterCounts(this.ch, tenantId, filters);
    if (!counts) this.counts.delete(key);
    else remembered(this.counts, key, { counts, at: now });
    return counts;
  }

  /** `kept` recordings started in [from, newest]. */
  private remember(key: string, kept: number, from: number, newest: number) {
    const density = densityOf(kept, from, newest);
    if (density) remembered(this.density, key, density);
  }

  /**
   * The unfiltered page. Up to VERIFY_MAX: the window's top offset + limit + 1 in SQL, edge-checked by id
   * while the page's details are read. Deeper: the page cut in SQL, the edge check for the whole window
   * beside it (usually only recordings that rank at the window's end, after the page).
   */
  async newestPage(tenantId: string, limit: number, offset: number, now = Date.now(), onLikelyPage?: ListingQuery['onLikelyPage']): Promise<ListingPage> {
    const want = offset + limit + 1;
    if (want <= VERIFY_MAX) return this.windowPage(tenantId, [], limit, offset, now, undefined, undefined, undefined, onLikelyPage);
    const key = memoryKey(tenantId, []);
    let w: Window | null = firstWindow(this.density.get(key), want, now, LEAN_SLACK);
    for (let round = 1; w; round++) {
      const since: number = w.since;
      const read = (exclude: string[]): { page: Promise<{ rows: PageRow[]; beforeLimit: number }>; details: Promise<PageDetails> } => {
        const page = this.ch.rowsBeforeLimit<PageRow>(TimelineSql.page(tenantId, since, limit + 1, offset, exclude));
        const details = later(
          page.then(({ rows }) =>
            readDetails(
              this.ch,
              tenantId,
              rows.slice(0, limit).map((r) => r.recording_id),
              rows.length ? earliest(rows.slice(0, limit)) : undefined,
              true,
            ),
          ),
        );
        return { page, details };
      };
      let current = read([]);
      const [first, rough] = await Promise.all([
        current.page,
        this.ch.rows<{ recording_id: string; latest_ts: string }>(TimelineSql.spanningRough(tenantId, since)),
      ]);
      let { rows, beforeLimit } = first;
      // Usually only recordings that started just before the window: they rank at its end, after this
      // page. `latest_ts` bounds where one ranks from above; those that may rank above the page's last
      // row are checked exactly, dropped, and the page read again, until none is left.
      const exclude: string[] = [];
      const checked = new Set<string>();
      for (;;) {
        const last = rows[rows.length - 1];
        const above = rough.filter(
          (e) => !checked.has(e.recording_id) && (rows.length < limit + 1 || !ranksAfter({ recording_id: e.recording_id, started_at: e.latest_ts }, last)),
        );
        if (above.length === 0) break;
        for (const e of above) checked.add(e.recording_id);
        const exact = await this.ch.rows<{ recording_id: string }>(
          TimelineSql.spanningOf(
            tenantId,
            since,
            above.map((e) => e.recording_id),
          ),
        );
        if (exact.length === 0) continue;
        exclude.push(...exact.map((e) => e.recording_id));
        current = read(exclude);
        ({ rows, beforeLimit } = await current.page);
      }
      const next: Window | null = rows.length === limit + 1 ? null : await widen(this.ch, tenantId, w, want, beforeLimit, round);
      if (!next) {
        if (rows.length === limit + 1) this.remember(key, beforeLimit, since, offset === 0 ? Number(rows[0].started_at) : w.top - 1);
        return { rows, details: await current.details };
      }
      w = next;
    }
    throw new Error('unreachable');
  }

  /** The top a window page was read from and the page, with how much of it the previous top held. */
  private rememberTop(key: string, top: readonly SummaryRow[], page: readonly SummaryRow[]) {
    const ids = top.map((r) => r.recording_id);
    const before = new Set(this.lastTop.get(key)?.top);
    const overlap = before.size && ids.length ? ids.filter((id) => before.has(id)).length / ids.length : undefined;
    remembered(this.lastTop, key, { top: ids, page: page.map((r) => r.recording_id), overlap }, TOP_KEYS);
  }

  /**
   * The checks of the listing's last top against a window from `since`, started now (Guess): every
   * recording's edge check, and the metadata of all of them (filtered: each is verified) or of the last
   * page (unfiltered: only the page's is shown).
   */
  private guess(tenantId: string, key: string, since: number, filtered: boolean): Guess | undefined {
    const last = this.guessChecks ? this.lastTop.get(key) : undefined;
    if (!last || last.top.length === 0 || (last.overlap ?? 1) < MIN_OVERLAP) return undefined;
    const metadataIds = filtered ? last.top : last.page;
    return {
      ids: new Set(last.top),
      started: later(this.ch.rows<{ recording_id: string }>(TimelineSql.spanningOf(tenantId, since, last.top))),
      metadataIds: new Set(metadataIds),
      metadata: later(metadataIds.length ? this.ch.rows<MetadataRow>(RecordingsSql.metadata(tenantId, metadataIds)) : Promise.resolve([])),
    };
  }

  /** A filtered page (offset + limit + 1 <= VERIFY_MAX, filters most selective first) from widening windows. */
  async filteredPage(tenantId: string, filters: readonly MetadataFilter[], limit: number, offset: number, now = Date.now()): Promise<ListingPage> {
    if (filters.length === 0 || offset + limit + 1 > VERIFY_MAX) throw new TypeError('filteredPage verifies 1 to VERIFY_MAX recordings of a filtered listing');
    return this.windowPage(tenantId, filters, limit, offset, now);
  }

  /**
   * A page with offset + limit + 1 <= VERIFY_MAX from widening windows: the window's top recordings (of
   * the filters' key/value ranges, a superset) with their summaries in one read, then checked by id
   * while their metadata is read: the edge check, and with filters the latest value of each filtered
   * key. Those that fail are excluded and the top read again; too few in the window: a wider one.
   * Unfiltered, metadata is read only for the page as it stands.
   */
  private async windowPage(
    tenantId: string,
    filters: readonly MetadataFilter[],
    limit: number,
    offset: number,
    now: number,
    live?: LiveScope,
    range?: StartedRange,
    activity?: ActivityFilters,
    onLikelyPage?: ListingQuery['onLikelyPage'],
  ): Promise<ListingPage> {
    const want = offset + limit + 1;
    const key = memoryKey(tenantId, filters, live, activity);
    const before = range?.to;
    const candidates = filters.length ? candidateRecordingsSql(tenantId, filters) : undefined;
    // Activity filters hold for the window's recordings in SQL: the window holds only those that pass.
    const filtered = filters.length > 0 || hasActivityFilters(activity);
    // Filters and the live scope drop some of the top: read a few more than wanted.
    const cap = want + (filtered || live ? (want >> 2) + MARGIN : 0);
    // Metadata does not depend on the window: kept across exclusions and widenings.
    const metadata: MetadataRow[] = [];
    const withMetadata = new Set<string>();
    let w: Window | null = firstWindow(this.density.get(key), want, now, filtered ? LEAN_SLACK : 2, range);
    for (let round = 1; w; round++) {
      const since: number = w.since;
      const exclude: string[] = [];
      const checked = new Set<string>();
      // The first window's checks of the last top, read beside it (a ranged page's top is not remembered).
      const guess = round === 1 && !range ? this.guess(tenantId, key, since, filters.length > 0) : undefined;
      for (;;) {
        const { rows: top, beforeLimit } = await this.ch.rowsBeforeLimit<SummaryRow>(
          RecordingsSql.windowSummaries(tenantId, since, cap, 0, exclude, candidates, before, activity),
        );
        onLikelyPage?.(top.slice(offset, offset + limit));
        const unchecked = top.map((r) => r.recording_id).filter((id) => !checked.has(id));
        const needMetadata = (filters.length ? unchecked : top.slice(offset, offset + limit).map((r) => r.recording_id)).filter((id) => !withMetadata.has(id));
        const toCheck = guess ? unchecked.filter((id) => !guess.ids.has(id)) : unchecked;
        const toRead = guess ? needMetadata.filter((id) => !guess.metadataIds.has(id)) : needMetadata;
        const [startedNow, metaNow, startedGuessed, metaGuessed] = await Promise.all([
          toCheck.length ? this.ch.rows<{ recording_id: string }>(TimelineSql.spanningOf(tenantId, since, toCheck)) : Promise.resolve([]),
          toRead.length ? this.ch.rows<MetadataRow>(RecordingsSql.metadata(tenantId, toRead)) : Promise.resolve([]),
          guess?.started ?? [],
          guess?.metadata ?? [],
        ]);
        const uncheckedSet = new Set(unchecked);
        const neededSet = new Set(needMetadata);
        const started = [...startedNow, ...startedGuessed.filter((r) => uncheckedSet.has(r.recording_id))];
        for (const id of unchecked) checked.add(id);
        for (const id of needMetadata) withMetadata.add(id);
        metadata.push(...metaNow, ...metaGuessed.filter((m) => neededSet.has(m.recording_id)));
        const latest = filters.length ? metadataById(metadata) : undefined;
        // Liveness from the summary: whole for a recording that started in the window (the others fail the edge check).
        const otherLiveness = live ? top.filter((r) => isLive(Number(r.last_activity_at) || null, live.since) !== live.live).map((r) => r.recording_id) : [];
        const failed = new Set([
          ...started.map((r) => r.recording_id),
          ...unchecked.filter((id) => latest && !matchesLatest(latest.get(id), filters)),
          ...otherLiveness,
        ]);
        const kept = failed.size ? top.filter((r) => !failed.has(r.recording_id)) : top;
        if (kept.length < want && top.length >= cap) {
          exclude.push(...failed);
          continue;
        }
        const next: Window | null = kept.length >= want ? null : await widen(this.ch, tenantId, w, want, beforeLimit - failed.size, round, range);
        if (!next) {
          // A ranged page's density tells little of the unranged listing's: not remembered. A listing
          // held whole (fewer than wanted, nothing older) is remembered by its own span, so the next
          // first window holds it whole too: a small tenant's page in one round instead of two.
          if (kept.length >= want && !range) this.remember(key, beforeLimit - failed.size, since, Number(kept[0].started_at));
          else if (kept.length && !range) this.remember(key, kept.length, Number(kept[kept.length - 1].started_at), Number(kept[0].started_at));
          const page = kept.slice(offset, offset + limit);
          if (!range) this.rememberTop(key, top, page);
          const missing = page.map((r) => r.recording_id).filter((id) => !withMetadata.has(id));
          if (missing.length) metadata.push(...(await this.ch.rows<MetadataRow>(RecordingsSql.metadata(tenantId, missing))));
          const onPage = new Set(page.map((r) => r.recording_id));
          return {
            rows: kept.slice(offset, offset + limit + 1).map((r) => ({ recording_id: r.recording_id, started_at: String(r.started_at) })),
            details: { summaries: page, metadata: metadata.filter((m) => onPage.has(m.recording_id)) },
          };
        }
        w = next;
        break;
      }
    }
    throw new Error('unreachable');
  }
}
