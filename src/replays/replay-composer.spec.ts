// How the replay composer reads its recordings: each id read once and again once per run of page
// views, one event held at a time, a recording that changed or went away between its reads refused.
import { AppError } from '../common/app-error';
import type { RrwebEvent } from '../domain/rrweb-event';
import { composeEventsInMemory, composeReplay } from './replay-composer';
import { collect, CUSTOM, FakeSource, FS, INC, META, rec, TENANT, view } from './testing/replay-source.fake';

describe('composeReplay', () => {
  it('skips empty and unknown recordings and reads each id once', async () => {
    const a = rec('a', [
      [META, 1],
      [FS, 1],
    ]);
    const source = FakeSource.of([a, rec('empty', [])]);
    const out = await collect(composeReplay(TENANT, ['empty', 'a', 'unknown', 'a'], source));
    expect(view(out)).toEqual([
      ['a', 0, 0],
      ['a', 1, 0],
    ]);
    expect(source.reads).toEqual(['empty', 'a', 'unknown', 'a']); // one first read each, then one re-read
    expect(await collect(composeReplay(TENANT, [], source))).toEqual([]);
    expect(composeEventsInMemory([rec('e', [])])).toEqual([]);
  });

  it('refuses a recording given twice in memory', () => {
    expect(() => composeEventsInMemory([rec('a', []), rec('a', [])])).toThrow(TypeError);
  });

  it('fails with unavailable when a recording changed between its two reads', async () => {
    const first = rec('a', [
      [META, 1],
      [FS, 1],
      [INC, 5],
    ]).events;
    const second = rec('a', [
      [CUSTOM, 0],
      [META, 1],
      [FS, 1],
      [INC, 5],
    ]).events;
    const source = new FakeSource((_, n) => (n === 1 ? first : second));
    const error = await collect(composeReplay(TENANT, ['a'], source)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('unavailable');
    expect(source.open).toBe(0);
  });

  it('fails with unavailable (retry), not 404, when a recording is deleted between its two reads', async () => {
    const first = rec('a', [
      [META, 1],
      [FS, 1],
      [INC, 5],
    ]).events;
    const source = new FakeSource((_, n) => {
      if (n === 1) return first;
      throw new AppError('not_found', 'Recording not found (it was deleted while being read)');
    });
    const error = await collect(composeReplay(TENANT, ['a'], source)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'unavailable' });
    expect(source.open).toBe(0);
  });

  it('leaves out events appended between the two reads', async () => {
    const first = rec('a', [
      [META, 1],
      [FS, 1],
    ]).events;
    const second = rec('a', [
      [META, 1],
      [FS, 1],
      [INC, 5],
    ]).events;
    const source = new FakeSource((_, n) => (n === 1 ? first : second));
    expect(await collect(composeReplay(TENANT, ['a'], source))).toHaveLength(2);
  });

  it('stops reading when aborted and closes the open read', async () => {
    const controller = new AbortController();
    const source = FakeSource.of([
      rec('a', [
        [META, 1],
        [FS, 1],
        [INC, 2],
        [INC, 3],
      ]),
    ]);
    const iterator = composeReplay(TENANT, ['a'], source, controller.signal);
    await iterator.next();
    controller.abort();
    await expect(iterator.next()).rejects.toMatchObject({ name: 'AbortError' });
    expect(source.open).toBe(0);
  });

  it('streams: holds one event at a time and re-reads once per run of page views', async () => {
    // Three large recordings generated on the fly, interleaved page views of 1000 events each.
    const pageViews = 8;
    const perView = 500;
    const generate = function* (id: string): Iterable<RrwebEvent> {
      const shift = Number(id.slice(1)) * 10;
      for (let p = 0; p < pageViews; p++) {
        const start = p * 100_000 + shift;
        yield { type: META, timestamp: start, data: { href: `https://x/${id}/${p}` } };
        yield { type: FS, timestamp: start, data: { node: {} } };
        for (let k = 2; k < perView; k++) yield { type: INC, timestamp: start + k, data: { source: 1, k } };
      }
    };
    const source = new FakeSource((id) => generate(id));
    let count = 0;
    let ordered = true;
    let last = -1;
    for await (const event of composeReplay(TENANT, ['r0', 'r1', 'r2'], source)) {
      count++;
      ordered &&= event.timestamp >= last;
      last = event.timestamp;
    }
    expect(count).toBe(3 * pageViews * perView);
    expect(ordered).toBe(true);
    expect(source.maxLive).toBe(1);
    expect(source.maxOpen).toBe(1);
    // Page views alternate between recordings: 3 first reads, then one read per page view.
    expect(source.reads).toHaveLength(3 + 3 * pageViews);
    expect(source.open).toBe(0);
  });

  it('keeps one read open across consecutive page views of the same recording', async () => {
    const a = rec('a', [
      [META, 1],
      [FS, 1],
      [META, 2],
      [FS, 2],
      [META, 3],
      [FS, 3],
    ]);
    const source = FakeSource.of([a]);
    await collect(composeReplay(TENANT, ['a'], source));
    expect(source.reads).toEqual(['a', 'a']);
  });
});
