import { AppError } from '../common/app-error';
import type { AppConfig } from '../config/config';
import type { EventStore, RawEvent } from '../domain/event-store';
import type { KeyframeHeader } from '../domain/server-keyframes';
import type { KeyframeCandidatesRepository } from '../read-model/keyframe-candidates.repository';
import type { KeyframeMaker, MadeKeyframes } from './keyframe-maker';
import { eventsJson, ServerKeyframesService } from './server-keyframes.service';

const raw = (type: number, timestamp: number, data: object = {}): RawEvent => ({
  type,
  timestamp,
  json: new TextEncoder().encode(JSON.stringify({ type, timestamp, data })),
});
// A page view at 0, then an event every 100 ms for 2 s.
const EVENTS = [raw(4, 0, { width: 640, height: 480 }), raw(2, 0), ...Array.from({ length: 20 }, (_, i) => raw(3, 100 * (i + 1)))];
const CFG = { KEYFRAME_EVERY_MINUTES: 0, KEYFRAME_EVERY_BYTES: 300, KEYFRAME_CONCURRENCY: 1, KEYFRAME_SCAN_SECONDS: 30 } as AppConfig;
const candidate = { tenantId: 't', recordingId: 'r', lastTs: 2000 };

function setup(
  make: (moments: readonly number[]) => MadeKeyframes | Promise<MadeKeyframes>,
  opts: { tooLarge?: () => number | undefined; readError?: AppError } = {},
) {
  const appended: { header: KeyframeHeader; bytes: number }[] = [];
  const asked: { moments: readonly number[]; viewport: unknown }[] = [];
  const store = {
    async *readRaw() {
      if (opts.readError) throw opts.readError;
      yield EVENTS;
    },
    appendKeyframe: async (_t: string, _r: string, header: KeyframeHeader, payload: Uint8Array) => {
      if (header.ok && header.ts === opts.tooLarge?.()) throw new AppError('payload_too_large', 'Keyframe too large to store');
      appended.push({ header, bytes: payload.length });
      return { duplicate: false, seq: 1, seqs: [1] };
    },
  } as unknown as EventStore;
  const maker = {
    make: async (_k: string, _j: string, _f: number, viewport: unknown, moments: readonly number[]) => (asked.push({ moments, viewport }), make(moments)),
  } as unknown as KeyframeMaker;
  const service = new ServerKeyframesService(store, {} as KeyframeCandidatesRepository, maker, CFG);
  return { service, appended, asked };
}
const madeAll = (moments: readonly number[]): MadeKeyframes => ({ made: moments.map((ts) => ({ ts, json: `[${ts}]` })) });

describe('ServerKeyframesService.makeFor', () => {
  it('stores a keyframe at each moment due, in the window of the first Meta, and not again', async () => {
    const { service, appended, asked } = setup(madeAll);
    expect(await service.makeFor(candidate)).toBeGreaterThan(0);
    expect(asked[0].viewport).toEqual({ width: 640, height: 480 });
    const moments = asked[0].moments;
    expect(appended.map((a) => a.header)).toEqual(moments.map((ts) => ({ v: 1, ts, ok: true, enc: 'gzip' })));
    // The index may not show them yet: the next pass starts after the last one made here.
    await service.makeFor(candidate);
    expect(asked.slice(1).every((a) => a.moments[0] > moments[moments.length - 1])).toBe(true);
  });

  it('remembers a failed moment as an attempt, keeping what was made before it', async () => {
    const { service, appended, asked } = setup((m) => ({ made: [{ ts: m[0], json: '[]' }], failed: { ts: m[1], reason: 'boom' } }));
    await service.makeFor(candidate);
    const m = asked[0].moments;
    expect(appended.map((a) => [a.header.ts, a.header.ok, a.bytes > 0])).toEqual([
      [m[0], true, true],
      [m[1], false, false],
    ]);
    expect(appended[1].header.reason).toBe('boom');
    expect(service.failed).toBe(1);
  });

  it('records no failure for a replay cut short by shutdown', async () => {
    const { service, appended } = setup(
      (m) => (service.stop(), { made: [{ ts: m[0], json: '[]' }], failed: { ts: m[1], reason: 'Renderer is shutting down' } }),
    );
    await service.makeFor(candidate);
    expect(appended.map((a) => a.header.ok)).toEqual([true]);
    expect(service.failed).toBe(0);
  });

  it('stores a keyframe too large for one message as a failed attempt', async () => {
    let moments: readonly number[] = [];
    const { service, appended } = setup((m) => ((moments = m), madeAll(m)), { tooLarge: () => moments[1] });
    await service.makeFor(candidate);
    expect(moments.length).toBeGreaterThanOrEqual(2);
    expect(appended.map((a) => [a.header.ts, a.header.ok])).toEqual([
      [moments[0], true],
      [moments[1], false],
    ]);
  });

  it('skips a recording deleted meanwhile, and one found to need nothing until it grows', async () => {
    const gone = setup(madeAll, { readError: new AppError('not_found', 'Recording not found') });
    expect(await gone.service.makeFor(candidate)).toBe(0);
    const none = setup(madeAll);
    expect(await none.service.makeFor({ ...candidate, triedTs: 2000 })).toBe(0);
    expect(none.asked).toEqual([]);
  });
});

describe('eventsJson', () => {
  it('joins the stored events into one JSON array, bytes unchanged', () => {
    expect(JSON.parse(eventsJson(EVENTS.slice(0, 2)))).toEqual([
      { type: 4, timestamp: 0, data: { width: 640, height: 480 } },
      { type: 2, timestamp: 0, data: {} },
    ]);
  });
});
