// Recordings for the replay composer's specs, and a source that serves them while watching how they
// are read (reads, open reads, events held). compose() runs both entry points and checks they agree.
import type { RecordingEventSource } from '../../domain/event-store';
import { EventType, ReadEvent, RrwebEvent } from '../../domain/rrweb-event';
import { composeEventsInMemory, composeReplay, InMemoryRecording } from '../replay-composer';

/** Short names of the event types the specs build recordings from. */
export const { FullSnapshot: FS, IncrementalSnapshot: INC, Meta: META, Custom: CUSTOM, DomContentLoaded: DCL, Load: LOAD } = EventType;
export const TENANT = 'tenant-1';

/** Events of one recording from [type, timestamp] pairs; data.i is the position, to trace events. */
export function rec(recordingId: string, spec: Array<[number, number]>): InMemoryRecording {
  return { recordingId, events: spec.map(([type, timestamp], i) => ({ type, timestamp, data: { i } })) };
}

export const view = (events: ReadEvent[]) => events.map((e) => [e.recordingId, e.data.i, e.timestamp]);

/**
 * Serves recordings and watches how they are read. Each event is handed out as a revocable proxy
 * that is revoked when the reader asks for the next one, so a composer that kept events around
 * would throw; `live` counts events handed out and not yet revoked.
 */
export class FakeSource implements RecordingEventSource {
  reads: string[] = [];
  open = 0;
  maxOpen = 0;
  live = 0;
  maxLive = 0;

  constructor(private readonly recordings: (id: string, readNumber: number) => Iterable<RrwebEvent> | undefined) {}

  static of(recordings: readonly InMemoryRecording[]): FakeSource {
    const byId = new Map(recordings.map((r) => [r.recordingId, r.events]));
    return new FakeSource((id) => byId.get(id));
  }

  async *read(tenantId: string, recordingId: string): AsyncGenerator<RrwebEvent> {
    expect(tenantId).toBe(TENANT);
    this.reads.push(recordingId);
    this.maxOpen = Math.max(this.maxOpen, ++this.open);
    let revokeLast: (() => void) | undefined;
    const release = () => {
      if (!revokeLast) return;
      revokeLast();
      revokeLast = undefined;
      this.live--;
    };
    try {
      const readNumber = this.reads.filter((id) => id === recordingId).length;
      for (const event of this.recordings(recordingId, readNumber) ?? []) {
        const { proxy, revoke } = Proxy.revocable({ ...event }, {});
        revokeLast = revoke;
        this.maxLive = Math.max(this.maxLive, ++this.live);
        yield proxy;
        release();
      }
    } finally {
      release();
      this.open--;
    }
  }
}

export async function collect(iterable: AsyncIterable<ReadEvent>): Promise<ReadEvent[]> {
  const out: ReadEvent[] = [];
  for await (const event of iterable) out.push(event);
  return out;
}

/** Both entry points must agree; returns the result. */
export async function compose(recordings: InMemoryRecording[]): Promise<ReadEvent[]> {
  const inMemory = composeEventsInMemory(recordings);
  const source = FakeSource.of(recordings);
  const streamed = await collect(
    composeReplay(
      TENANT,
      recordings.map((r) => r.recordingId),
      source,
    ),
  );
  expect(streamed).toEqual(inMemory);
  expect(source.open).toBe(0);
  return inMemory;
}
