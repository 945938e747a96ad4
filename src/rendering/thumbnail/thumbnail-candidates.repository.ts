// Recordings that became idle between two thumbnail sweeps (thumbnail-sweep.ts), from the projections:
// those whose last batch was stored (ingested_at, stream time) in (since, until]. Coarse on purpose:
// a deleted recording is found gone when its events are resolved, and is skipped.
import { Injectable } from '@nestjs/common';
import { ClickHouse } from '../../infrastructure/clickhouse/clickhouse-client';
import { lastStoredIn, StoredRecording } from '../../read-model/recently-stored.sql';

export type IdleRecording = StoredRecording;

@Injectable()
export class ThumbnailCandidatesRepository {
  constructor(private readonly ch: ClickHouse) {}

  idle(q: { since: number; until: number; limit: number }): Promise<IdleRecording[]> {
    // Stored times are whole milliseconds: after `since` is from since + 1.
    return lastStoredIn(this.ch, { fromMs: q.since + 1, untilMs: q.until, limit: q.limit });
  }
}
