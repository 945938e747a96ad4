import { Readable } from 'node:stream';
import { ReadMeter } from './read-meter';

/** A bucket of `perSecond` bytes refilled in real time, as TenantRates gives it (burst of one second). */
function bucket(perSecond: number) {
  let tokens = perSecond;
  let at = Date.now();
  return async (bytes: number) => {
    const now = Date.now();
    tokens = Math.min(perSecond, tokens + ((now - at) / 1000) * perSecond);
    at = now;
    if (tokens >= Math.min(bytes, perSecond)) {
      tokens -= bytes;
      return 0;
    }
    return (Math.min(bytes, perSecond) - tokens) / perSecond;
  };
}

const chunks = (n: number, size: number) => Readable.from(Array.from({ length: n }, () => Buffer.alloc(size, 0x61)));

describe('ReadMeter', () => {
  it('slows a stream to the rate once the burst is spent, and passes every byte', async () => {
    const meter = new ReadMeter();
    const started = Date.now();
    let bytes = 0;
    let sawWaiting = false;
    const out = meter.meter('t', chunks(10, 10_000), bucket(40_000));
    for await (const c of out) {
      bytes += (c as Buffer).length;
      sawWaiting ||= meter.isWaiting('t');
    }
    expect(bytes).toBe(100_000);
    // 40 000 at once, then 60 000 at 40 000 per second.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    expect(sawWaiting).toBe(true);
    expect(meter.isWaiting('t')).toBe(false);
  });

  it('pays only for what passes beyond the prepaid bytes', async () => {
    const meter = new ReadMeter();
    const paid: number[] = [];
    const out = meter.meter('t', chunks(3, 1000), async (b) => (paid.push(b), 0), 1500);
    for await (const _ of out);
    expect(paid).toEqual([500, 1000]);
  });

  it('makes each paid chunk wait for its pace, without counting the read as waiting for bandwidth', async () => {
    const meter = new ReadMeter();
    const paced: number[] = [];
    // The first chunk pays nothing (prepaid); the other two wait 100 ms each.
    const out = meter.meter(
      't',
      chunks(3, 1000),
      async () => 0,
      1000,
      (b) => (paced.push(b), 0.1),
    );
    const started = Date.now();
    let sawWaiting = false;
    for await (const _ of out) sawWaiting ||= meter.isWaiting('t');
    expect(paced).toEqual([1000, 1000]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(sawWaiting).toBe(false);
  });

  it("passes the source's error on, as the reply needs it (404 before the first byte)", async () => {
    const meter = new ReadMeter();
    const failing = new Readable({
      read() {
        this.destroy(Object.assign(new Error('Recording not found'), { code: 'not_found' }));
      },
    });
    const it = meter.meter('t', failing, bucket(1000))[Symbol.asyncIterator]();
    await expect(it.next()).rejects.toThrow('Recording not found');
  });

  it('stops reading the source when the metered stream is dropped (client gone)', async () => {
    const meter = new ReadMeter();
    const source = chunks(100, 1000);
    const out = meter.meter('t', source, bucket(1000));
    const it = out[Symbol.asyncIterator]();
    await it.next();
    await it.return?.();
    await new Promise((r) => setImmediate(r));
    expect(source.destroyed).toBe(true);
  });
});
