import type { Readable } from 'node:stream';
import { AppError } from './app-error';
import { jsonArrayStream, jsonObjectWithArray } from './json-array-stream';

/** Reads the stream to its end or its error: the text it gave, and the error. */
async function drain(stream: Readable): Promise<{ text: string; error?: unknown }> {
  let text = '';
  try {
    for await (const chunk of stream) text += chunk;
  } catch (error) {
    return { text, error };
  }
  return { text };
}

async function* failing(after: number[]): AsyncGenerator<number> {
  yield* after;
  throw new AppError('unavailable', 'Event store (NATS JetStream) is unreachable; retry later');
}

async function* items(values: unknown[]): AsyncGenerator<unknown> {
  yield* values;
}

describe('jsonObjectWithArray', () => {
  it('wraps the array after the head', async () => {
    expect(JSON.parse((await drain(jsonObjectWithArray({ metadata: { a: '1' } }, 'events', items([1, { b: 2 }])))).text)).toEqual({
      metadata: { a: '1' },
      events: [1, { b: 2 }],
    });
    expect(JSON.parse((await drain(jsonObjectWithArray({}, 'events', items([])))).text)).toEqual({ events: [] });
  });

  // Fastify sends the status and headers with the first byte: a failure before it (the event store
  // unreachable while a replay is planned) must still become its own status (503), not a 200 whose
  // body breaks off after the metadata.
  it('gives no byte before the array has one: an early failure errors a stream that sent nothing', async () => {
    for (const before of [[], [1, 2]]) {
      const { text, error } = await drain(jsonObjectWithArray({ metadata: { a: '1' } }, 'events', failing(before)));
      expect(error).toBeInstanceOf(AppError);
      expect(text).toBe('');
    }
    const plain = await drain(jsonArrayStream(failing([1])));
    expect(plain).toEqual({ text: '', error: expect.any(AppError) });
  });
});
