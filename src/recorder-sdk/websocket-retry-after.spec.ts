// The recorder under a rate limit or a full quota (#32, docs/websocket.md): an error frame's
// retryAfter, or HTTP's Retry-After on a 429/507, holds every send, on the socket and over HTTP, for
// that long; the refused batch stays queued and goes again with its id once the time is up. A fake
// WebSocket and fetch, on Jest's fake clock.
import { BatchQueue } from './browser/batch-queue';
import { HttpTransport } from './browser/http-transport';
import { SendScheduler } from './browser/send-scheduler';
import { WebSocketTransport } from './browser/websocket-transport';

class FakeSocket {
  static CONNECTING = 0;
  static OPEN = 1;
  static last: FakeSocket;
  readyState = FakeSocket.CONNECTING;
  sent: { type: string; batch: string }[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((ev: { data: string }) => void) | null = null;
  onclose: ((ev: { code: number }) => void) | null = null;
  onerror: (() => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.last = this;
  }
  send(frame: string) {
    const f = JSON.parse(frame) as { type: string; batch: string };
    if (f.type === 'batch') this.sent.push(f);
  }
  close() {
    this.readyState = 3;
  }
  opened() {
    this.readyState = FakeSocket.OPEN;
    this.onopen?.();
  }
  answer(frame: object) {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }
}

describe('the recorder after a rate-limit error frame', () => {
  const posts: string[] = [];
  /** What the fake server answers the next POSTs, then 200. */
  let answers: Response[] = [];
  let queue: BatchQueue;
  let sender: SendScheduler;
  let socket: FakeSocket;

  beforeEach(() => {
    jest.useFakeTimers({ now: 1_700_000_000_000 });
    posts.length = 0;
    answers = [];
    (globalThis as Record<string, unknown>).WebSocket = FakeSocket;
    (globalThis as Record<string, unknown>).fetch = jest.fn((_url: string, init: { headers: Record<string, string> }) => {
      posts.push(init.headers['Idempotency-Key']);
      return Promise.resolve(answers.shift() ?? new Response(null, { status: 200 }));
    });
    queue = new BatchQueue();
    const host = {
      isStopped: () => false,
      isRefused: () => false,
      isWaiting: () => false,
      pump: () => sender.pump(),
      pauseSending: (until: number) => sender.pauseSending(until),
      watchedUntil: () => undefined,
      onRefused: () => undefined,
    };
    const ws = new WebSocketTransport(queue, host);
    ws.url = 'ws://tapedeck.test/recordings/r/events/ws?token=k';
    const http = new HttpTransport('k', queue, host);
    http.url = 'http://tapedeck.test/recordings/r/events';
    sender = new SendScheduler(queue, ws, http, host);
    ws.connect();
    socket = FakeSocket.last;
    socket.opened();
  });

  afterEach(() => {
    sender.close();
    jest.useRealTimers();
    delete (globalThis as Record<string, unknown>).WebSocket;
  });

  it('waits the frame’s retryAfter before sending anything again, keeps the batch, and resends it with its id', async () => {
    queue.add('b1', '[{"type":3}]', 1);
    sender.pump();
    expect(socket.sent.map((f) => f.batch)).toEqual(['b1']);
    socket.answer({ type: 'error', status: 429, message: 'Ingestion rate limit reached', batch: 'b1', retryAfter: 3 });
    queue.add('b2', '[{"type":3}]', 1);
    sender.pump();

    // The backoff alone would resend after at most 250 ms; the server asked for 3 s.
    await jest.advanceTimersByTimeAsync(2900);
    expect(socket.sent.map((f) => f.batch)).toEqual(['b1']);
    expect(posts).toEqual([]);
    expect(queue.unacked().map((b) => b.id)).toEqual(['b1', 'b2']);

    await jest.advanceTimersByTimeAsync(200);
    expect(socket.sent.map((f) => f.batch)).toEqual(['b1', 'b1', 'b2']);
    socket.answer({ type: 'ack', batch: 'b1' });
    socket.answer({ type: 'ack', batch: 'b2' });
    expect(queue.size).toBe(0);
    expect(posts).toEqual([]);
  });

  it('lets a later, shorter wait not cut a longer one short', async () => {
    queue.add('b1', '[1]', 1);
    queue.add('b2', '[2]', 1);
    sender.pump();
    socket.answer({ type: 'error', status: 507, message: 'quota', batch: 'b1', retryAfter: 5 });
    socket.answer({ type: 'error', status: 429, message: 'rate', batch: 'b2' });
    await jest.advanceTimersByTimeAsync(4900);
    expect(socket.sent.map((f) => f.batch)).toEqual(['b1', 'b2']);
    await jest.advanceTimersByTimeAsync(200);
    expect(socket.sent.map((f) => f.batch)).toEqual(['b1', 'b2', 'b1', 'b2']);
  });

  it('caps what the server asks at a minute', async () => {
    queue.add('b1', '[1]', 1);
    sender.pump();
    socket.answer({ type: 'error', status: 429, message: 'rate', batch: 'b1', retryAfter: 86_400 });
    await jest.advanceTimersByTimeAsync(59_000);
    expect(socket.sent).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(2000);
    expect(socket.sent).toHaveLength(2);
  });

  it('keeps a paused socket (503) off for the frame’s retryAfter while HTTP carries the batches', async () => {
    queue.add('b1', '[1]', 1);
    sender.pump();
    socket.answer({ type: 'error', status: 503, message: 'unavailable', batch: 'b1', retryAfter: 20 });
    await jest.advanceTimersByTimeAsync(100);
    expect(posts).toEqual(['b1']);
    // Well past the 1 s the pause's backoff alone would give: still HTTP.
    await jest.advanceTimersByTimeAsync(10_000);
    queue.add('b2', '[2]', 1);
    sender.pump();
    await jest.advanceTimersByTimeAsync(100);
    expect(socket.sent.map((f) => f.batch)).toEqual(['b1']);
    expect(posts).toEqual(['b1', 'b2']);
    await jest.advanceTimersByTimeAsync(10_000);
    queue.add('b3', '[3]', 1);
    sender.pump();
    expect(socket.sent.map((f) => f.batch)).toEqual(['b1', 'b3']);
  });

  it('holds the socket too when HTTP answers 507 with Retry-After (the stored-bytes quota is used up)', async () => {
    socket.answer({ type: 'error', status: 503, message: 'unavailable', batch: 'none' });
    answers = [new Response('quota', { status: 507, headers: { 'Retry-After': '4' } })];
    queue.add('b1', '[1]', 1);
    sender.pump();
    await jest.advanceTimersByTimeAsync(1500);
    expect(posts).toEqual(['b1']);
    // The socket is back, but the quota holds everything for 4 s.
    queue.add('b2', '[2]', 1);
    sender.pump();
    await jest.advanceTimersByTimeAsync(2000);
    expect(socket.sent).toEqual([]);
    expect(posts).toEqual(['b1']);
    await jest.advanceTimersByTimeAsync(1000);
    expect(socket.sent.map((f) => f.batch)).toEqual(['b1', 'b2']);
    expect(queue.unacked().map((b) => b.id)).toEqual(['b1', 'b2']);
  });
});
