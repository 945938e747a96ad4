import type { RecordingTails, TailMessage } from '../infrastructure/nats/recording-tail';
import { LiveChannel, LiveSink } from './live-channel';

/** A channel on a fake tail: `push` delivers messages as JetStream would. */
function setup(idleMs = 60_000) {
  let deliver: (m: TailMessage) => void = () => undefined;
  const tails = {
    follow: (_t: string, _r: string, _s: number, on: (m: TailMessage) => void) => ((deliver = on), { stop: jest.fn() }),
  } as unknown as RecordingTails;
  const ended = jest.fn();
  const channel = new LiveChannel('t', 'r', tails, idleMs, ended);
  const got: { seq?: number; text: string }[] = [];
  const sink: LiveSink = {
    events: (seq, frame) => got.push({ seq, text: frame.toString() }),
    status: (frame) => got.push({ text: frame.toString() }),
    end: (reason) => got.push({ text: `end ${reason}` }),
  };
  channel.viewers.add(sink);
  channel.start(1);
  const ev = (seq: number, events: unknown[], extra: Partial<TailMessage> = {}): TailMessage => ({
    seq,
    kind: 'ev',
    batch: `b${seq}`,
    data: Buffer.from(JSON.stringify(events)),
    storedAt: Date.now(),
    ...extra,
  });
  return { channel, got, ended, push: (m: TailMessage) => deliver(m), ev };
}

describe('LiveChannel', () => {
  it('sends each stored batch once, its events in timestamp order with originalTimestamp, without metadata events', () => {
    const { got, push, ev } = setup();
    push(
      ev(5, [
        { type: 3, timestamp: 20 },
        { type: 3, timestamp: 10 },
        { type: 5, timestamp: 11, data: { tag: 'recording-meta', payload: { a: 'b' } } },
      ]),
    );
    push(ev(6, [{ type: 3, timestamp: 30 }], { batch: 'b5' })); // the same batch stored again
    const frames = got.filter((g) => g.seq !== undefined);
    expect(frames).toHaveLength(1);
    expect(frames[0].seq).toBe(5);
    const data = JSON.parse(frames[0].text.split('data: ')[1]) as { timestamp: number; originalTimestamp: number }[];
    expect(data).toEqual([
      { type: 3, timestamp: 10, originalTimestamp: 10 },
      { type: 3, timestamp: 20, originalTimestamp: 20 },
    ]);
  });

  it('joins a chunked batch before sending it, at the last chunk’s sequence', () => {
    const { got, push } = setup();
    const json = Buffer.from(
      JSON.stringify([
        { type: 3, timestamp: 1 },
        { type: 3, timestamp: 2 },
      ]),
    );
    const cut = 7;
    push({ seq: 8, kind: 'ev', batch: 'big', chunk: '0/2', data: json.subarray(0, cut), storedAt: Date.now() });
    expect(got.filter((g) => g.seq !== undefined)).toHaveLength(0);
    push({ seq: 9, kind: 'ev', batch: 'big', chunk: '1/2', data: json.subarray(cut), storedAt: Date.now() });
    const frames = got.filter((g) => g.seq !== undefined);
    expect(frames.map((f) => f.seq)).toEqual([9]);
    expect(JSON.parse(frames[0].text.split('data: ')[1])).toHaveLength(2);
  });

  it('ends every viewer when a deletion marker arrives, and ignores metadata writes', () => {
    const { got, push, ended, channel } = setup();
    push({ seq: 3, kind: 'meta', data: Buffer.from('{"a":"b"}'), storedAt: Date.now() });
    expect(got).toHaveLength(0);
    push({ seq: 4, kind: 'del', data: Buffer.alloc(0), storedAt: Date.now() });
    expect(got.map((g) => g.text)).toEqual(['end deleted']);
    expect(ended).toHaveBeenCalledWith(channel);
  });

  it('tells viewers when the recording turns idle and live again', () => {
    jest.useFakeTimers();
    try {
      const { got, push, ev, channel } = setup(1000);
      channel.noteEventAt(Date.now(), true);
      expect(channel.live).toBe(true);
      jest.advanceTimersByTime(1100);
      expect(channel.live).toBe(false);
      expect(got.map((g) => JSON.parse(g.text.split('data: ')[1]).live)).toEqual([false]);
      push(ev(2, [{ type: 3, timestamp: 1 }]));
      const statuses = got.filter((g) => g.text.startsWith('event: status')).map((g) => JSON.parse(g.text.split('data: ')[1]).live);
      expect(statuses).toEqual([false, true]);
    } finally {
      jest.useRealTimers();
    }
  });
});
