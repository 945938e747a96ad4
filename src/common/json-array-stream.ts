// Streams an async iterable of values as one JSON array, pulling the next value only when the
// consumer is ready (Readable.from is pull-based), so large responses are never buffered whole.
// A failure mid-stream destroys the stream: the client sees a truncated response, never valid
// JSON that silently lacks events.
import { Readable } from 'node:stream';

/** The array's text in chunks of about 64 KiB: nothing until the first chunk is complete. */
async function* jsonArrayChunks<T>(items: AsyncIterable<T>, map: (item: T) => unknown): AsyncGenerator<string> {
  let first = true;
  let pending = '[';
  for await (const item of items) {
    pending += (first ? '' : ',') + JSON.stringify(map(item));
    first = false;
    if (pending.length >= 64 * 1024) {
      yield pending;
      pending = '';
    }
  }
  yield pending + ']';
}

export function jsonArrayStream<T>(items: AsyncIterable<T>, map: (item: T) => unknown = (x) => x): Readable {
  return Readable.from(jsonArrayChunks(items, map), { objectMode: false, highWaterMark: 256 * 1024 });
}

/**
 * Wraps the stream as `{"metadata":…,"events":[…]}` (replay objects). The head goes out with the
 * array's first chunk, not before: a failure until then still gets its own status, since the status
 * leaves with the first byte.
 */
export function jsonObjectWithArray<T>(head: Record<string, unknown>, key: string, items: AsyncIterable<T>, map: (item: T) => unknown = (x) => x): Readable {
  const prefix = JSON.stringify(head).slice(0, -1) + (Object.keys(head).length ? ',' : '') + JSON.stringify(key) + ':';
  async function* gen() {
    let first = true;
    for await (const chunk of jsonArrayChunks(items, map)) {
      yield first ? prefix + chunk : chunk;
      first = false;
    }
    yield '}';
  }
  return Readable.from(gen(), { objectMode: false, highWaterMark: 256 * 1024 });
}
