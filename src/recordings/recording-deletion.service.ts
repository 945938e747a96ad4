// The one way a recording is deleted, for DELETE /recordings/{id} and for retention: the event store
// deletes it (a marker, then its messages below it; see event-deleter.ts), and the projectors hide it
// when they apply the marker. An API caller is answered once the projections hide it (bounded wait).
import { Inject, Injectable, Optional } from '@nestjs/common';
import { assertRecordingExists, EVENT_STORE, EventStore } from '../domain/event-store';
import { RecordingsQueryService } from './recordings-query.service';

/**
 * Provided by RecordingsModule (API role: with the read model, to wait for it) and by RetentionModule
 * (projector role: without, nothing waits there).
 */
@Injectable()
export class RecordingDeletion {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Optional() private readonly projections?: RecordingsQueryService,
  ) {}

  /**
   * DELETE /recordings/{id}: 404 for a recording the store does not hold; resolves once the
   * projections hide it, or after their bounded wait (awaitDeletionProjected).
   */
  async delete(tenantId: string, recordingId: string): Promise<void> {
    await assertRecordingExists(this.store, tenantId, recordingId);
    const { markerSeq } = await this.store.deleteRecording(tenantId, recordingId);
    await this.projections?.awaitDeletionProjected(tenantId, recordingId, markerSeq);
  }

  /**
   * Retention: deletes an expired recording. With `ifStored`, false (and nothing written) when the
   * store holds nothing of it any more (deleted already: its rows go when that marker is projected);
   * a failed check does not stop the deletion. Without it (finishing a deletion that failed part
   * way), it always deletes.
   */
  /** Removes the archives of deleted recordings that their deletions could not find (EventStore.sweepDeletedArchives). */
  sweepArchives(): Promise<number> {
    return this.store.sweepDeletedArchives();
  }

  async expire(tenantId: string, recordingId: string, opts: { ifStored: boolean }): Promise<boolean> {
    if (opts.ifStored && !(await this.store.exists(tenantId, recordingId).catch(() => true))) return false;
    await this.store.deleteRecording(tenantId, recordingId);
    return true;
  }
}
