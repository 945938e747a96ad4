// Recordings to seal (archive-worker.ts), from the projections: those whose last batch was stored
// (ingested_at: the stream time, kept by sealing) between `idleMs` and `idleMs + LOOKBACK_MS` ago.
// Coarse on purpose: the sealer reads the stream and finds a recording sealed already, or deleted.
import { Injectable } from '@nestjs/common';
import { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { lastStoredIn, StoredRecording } from '../read-model/recently-stored.sql';

/** Recordings idle longer than this beyond the idle time are not looked at (they were, then). */
export const LOOKBACK_MS = 24 * 3600_000;

export type SealCandidate = StoredRecording;

@Injectable()
export class SealCandidatesRepository {
  constructor(private readonly ch: ClickHouse) {}

  candidates(q: { nowMs: number; idleMs: number; limit: number }): Promise<SealCandidate[]> {
    return lastStoredIn(this.ch, { fromMs: q.nowMs - q.idleMs - LOOKBACK_MS, untilMs: q.nowMs - q.idleMs, limit: q.limit });
  }
}
