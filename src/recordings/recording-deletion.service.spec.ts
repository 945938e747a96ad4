import type { EventStore } from '../domain/event-store';
import { RecordingDeletion } from './recording-deletion.service';
import type { RecordingsQueryService } from './recordings-query.service';

/** A store holding the given recordings; `deleteRecording` records the call and answers marker seq 41. */
function fakeStore(stored: Set<string>, o: { existsFails?: boolean } = {}) {
  const calls: string[] = [];
  const store = {
    exists: async (t: string, id: string) => {
      calls.push(`exists ${t}/${id}`);
      if (o.existsFails) throw new Error('JetStream timeout');
      return stored.has(id);
    },
    deleteRecording: async (t: string, id: string) => {
      calls.push(`delete ${t}/${id}`);
      return { deleted: 2, markerSeq: 41 };
    },
  } as unknown as EventStore;
  return { store, calls };
}

describe('RecordingDeletion', () => {
  it('deletes a stored recording for the API and waits for the projections to hide it', async () => {
    const { store, calls } = fakeStore(new Set(['r1']));
    const waited: unknown[] = [];
    const projections = { awaitDeletionProjected: async (...args: unknown[]) => waited.push(args) } as unknown as RecordingsQueryService;
    await new RecordingDeletion(store, projections).delete('t', 'r1');
    expect(calls).toEqual(['exists t/r1', 'delete t/r1']);
    expect(waited).toEqual([['t', 'r1', 41]]);
  });

  it('answers 404 for a recording the store does not hold, and writes nothing', async () => {
    const { store, calls } = fakeStore(new Set());
    await expect(new RecordingDeletion(store).delete('t', 'r1')).rejects.toMatchObject({ code: 'not_found', message: 'Recording not found' });
    expect(calls).toEqual(['exists t/r1']);
  });

  it('expires for retention: skips what is gone, deletes when the check fails, and always when finishing a deletion', async () => {
    const gone = fakeStore(new Set());
    expect(await new RecordingDeletion(gone.store).expire('t', 'r1', { ifStored: true })).toBe(false);
    expect(gone.calls).toEqual(['exists t/r1']);
    const unknown = fakeStore(new Set(), { existsFails: true });
    expect(await new RecordingDeletion(unknown.store).expire('t', 'r1', { ifStored: true })).toBe(true);
    expect(unknown.calls).toEqual(['exists t/r1', 'delete t/r1']);
    const retry = fakeStore(new Set());
    expect(await new RecordingDeletion(retry.store).expire('t', 'r1', { ifStored: false })).toBe(true);
    expect(retry.calls).toEqual(['delete t/r1']);
  });
});
