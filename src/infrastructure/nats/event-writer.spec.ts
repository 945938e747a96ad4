import type { PubAck } from 'nats';
import { summarizeBatch } from '../../domain/batch-summary';
import { chunkBounds, EventWriter } from './event-writer';
import type { MessageScanner } from './message-scan';
import type { RecordingMessages } from './recording-messages';

describe('chunkBounds', () => {
  const MB = 1024 * 1024;
  const size = MB - 8 * 1024;

  it('keeps a batch that fits, with its summary, in one message', () => {
    expect(chunkBounds(1000, MB, 200)).toEqual([[0, 1000]]);
    expect(chunkBounds(0, MB, 200)).toEqual([[0, 0]]);
    expect(chunkBounds(size - 200, MB, 200)).toEqual([[0, size - 200]]);
  });

  it('fills every message but the last, which is cut shorter by the summary header, covering every byte once', () => {
    const total = 3 * MB;
    const bounds = chunkBounds(total, MB, 60_000);
    for (let i = 1; i < bounds.length; i++) expect(bounds[i][0]).toBe(bounds[i - 1][1]);
    expect(bounds[0][0]).toBe(0);
    expect(bounds[bounds.length - 1][1]).toBe(total);
    expect(bounds.slice(0, -1).every(([a, b]) => b - a === size)).toBe(true);
    // Every message, with the summary on the last, stays within max_payload less the headroom.
    expect(Math.max(...bounds.map(([a, b], i) => b - a + (i === bounds.length - 1 ? 60_000 : 0)))).toBeLessThanOrEqual(size);
  });

  it('never leaves the last message empty, even when the rest fills a message exactly', () => {
    const bounds = chunkBounds(size, MB, 200);
    expect(bounds).toEqual([
      [0, size - 1],
      [size - 1, size],
    ]);
    expect(chunkBounds(2 * size, MB, 200)).toEqual([
      [0, size],
      [size, 2 * size - 1],
      [2 * size - 1, 2 * size],
    ]);
  });

  it('moves to a second message exactly when the summary no longer fits beside the data', () => {
    expect(chunkBounds(size - 199, MB, 200)).toEqual([
      [0, size - 200],
      [size - 200, size - 199],
    ]);
  });
});

describe('EventWriter.appendBatch', () => {
  // A stand-in for JetStream that acknowledges each message a tick later and notes how many were in flight.
  function fakeMessages(maxPayload: number) {
    const published: string[] = [];
    let inFlight = 0;
    let most = 0;
    const messages = {
      maxPayload,
      assertConnected: () => undefined,
      publish: async (_subject: string, _data: Uint8Array, msgID: string): Promise<PubAck> => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 1));
        inFlight--;
        published.push(msgID);
        return { seq: published.length, duplicate: false, stream: 'events' } as PubAck;
      },
    };
    return { messages: messages as unknown as RecordingMessages, published, most: () => most };
  }

  it("stores a large batch's chunks one at a time, the one with the summary last, so another batch waits for at most one of them", async () => {
    const f = fakeMessages(128 * 1024);
    const writer = new EventWriter(f.messages, {} as MessageScanner, () => Promise.resolve({ ev: 0, meta: 0, del: 0, kf: 0 }));
    const payload = new Uint8Array(1024 * 1024);
    const r = await writer.appendBatch('t_1', 'rec-1', 'b1', payload, summarizeBatch([], payload.length));
    const count = chunkBounds(payload.length, 128 * 1024, 0).length;
    expect(count).toBeGreaterThan(5);
    expect(f.most()).toBe(1);
    expect(f.published).toEqual(Array.from({ length: f.published.length }, (_, i) => `b1.${i}/${f.published.length}`));
    expect(r).toMatchObject({ duplicate: false, seq: f.published.length, seqs: f.published.map((_, i) => i + 1) });
  });
});
