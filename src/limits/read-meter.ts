// Read bandwidth: a stream's bytes are paid from the tenant's read bucket as they pass, and when the
// bucket is empty the stream waits (its reader stops pulling from JetStream: backpressure), so a
// tenant's reads together never go faster than its limit. Paced, paid bytes also wait their turn at
// the rate, so that a tenant's reads go at an even pace rather than in bursts of the bucket's depth.
// A new read is refused (429) while the tenant's reads are already waiting for bandwidth here or its
// shared bucket is empty.
import { Readable, Transform } from 'node:stream';

/** Takes bytes from the bucket: 0 once taken, else seconds to wait. */
export type PayBytes = (bytes: number) => Promise<number>;
/** Seconds paid bytes wait before they pass, to go at the pace of the rate (pacer.ts): 0 at once. */
export type PaceBytes = (bytes: number) => number;

/** Longest single wait between two tries (a limit raised meanwhile applies within this). */
const MAX_WAIT_MS = 1000;

export class ReadMeter {
  /** Streams of each tenant waiting for bandwidth on this instance right now. */
  private readonly waiting = new Map<string, number>();

  /** Whether a read of the tenant is waiting for bandwidth here. */
  isWaiting(tenantId: string): boolean {
    return (this.waiting.get(tenantId) ?? 0) > 0;
  }

  /**
   * `source`, paid for chunk by chunk once its first `prepaid` bytes are used up, each chunk then
   * waiting for its pace when given (not counted as waiting for bandwidth: the bucket has it).
   */
  meter(tenantId: string, source: Readable, pay: PayBytes, prepaid = 0, pace?: PaceBytes): Readable {
    let credit = prepaid;
    const waitFor = async (chunk: number, stream: Transform) => {
      const bytes = chunk - Math.min(credit, chunk);
      credit -= chunk - bytes;
      if (bytes === 0) return;
      let counted = false;
      try {
        for (let wait = await pay(bytes); wait > 0 && !stream.destroyed; wait = await pay(bytes)) {
          if (!counted) this.waiting.set(tenantId, (this.waiting.get(tenantId) ?? 0) + 1);
          counted = true;
          await new Promise((r) => setTimeout(r, Math.min(MAX_WAIT_MS, Math.ceil(wait * 1000))));
        }
      } finally {
        if (counted) {
          const n = (this.waiting.get(tenantId) ?? 1) - 1;
          if (n > 0) this.waiting.set(tenantId, n);
          else this.waiting.delete(tenantId);
        }
      }
      const paced = stream.destroyed ? 0 : (pace?.(bytes) ?? 0);
      if (paced > 0) await new Promise((r) => setTimeout(r, Math.ceil(paced * 1000)));
    };
    const meter = new Transform({
      readableHighWaterMark: source.readableHighWaterMark,
      transform(chunk: Buffer, _enc, done) {
        waitFor(chunk.length, this).then(
          () => done(null, chunk),
          (e: Error) => done(e),
        );
      },
    });
    source.once('error', (e) => meter.destroy(e));
    meter.once('close', () => source.destroy());
    return source.pipe(meter);
  }
}
