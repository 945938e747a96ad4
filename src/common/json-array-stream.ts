// Streams an async iterable of values as one JSON array, pulling the next value only when the
// consumer is ready (Readable.from is pull-based), so large responses are never buffered whole.
// A failure mid-stream destroys the stream: the client sees a truncated response, never valid
// JSON that silently lacks events.
import { Readable } from 'node:stream';

export function jsonArrayStream<T>(items: AsyncIterable<T>, map: (item: T) => unknown = (x) => x): Readable {
  async function* gen() {
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
  return Readable.from(gen(), { objectMode: false, highWaterMark: 256 * 1024 });
}

/**
 * Wraps the stream as `{"metadata":…,"events":[…]}` (replay objects). The head goes out with the
 * array's first chunk, not before: a failure until then still gets its own status, since the status
 * leaves with the first byte.
 */
export function jsonObjectWithArray<T>(head: Record<string, unknown>, key: string, items: AsyncIterable<T>, map?: (item: T) => unknown): Readable {
  let prefix = JSON.stringify(head).slice(0, -1) + (Object.keys(head).length ? ',' : '') + JSON.stringify(key) + ':';
  const inner = jsonArrayStream(items, map);
  async function* gen() {
    for await (const chunk of inner) {
      yield prefix + chunk;
      prefix = '';
    }
    yield '}';
  }
  return Readable.from(gen(), { objectMode: false });
}
