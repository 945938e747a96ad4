import { request as httpRequest } from 'node:http';
import { testEnv } from './env';

export interface Res {
  status: number;
  headers: Headers;
  text: string;
  json<T = any>(): T;
}

/** fetch against the service under test; `key` becomes a Bearer header. */
export async function api(path: string, init: RequestInit & { key?: string; base?: string } = {}): Promise<Res> {
  const { key, base, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (key) headers.set('authorization', `Bearer ${key}`);
  const r = await fetch((base ?? testEnv().baseUrl) + path, { ...rest, headers });
  const text = await r.text();
  return { status: r.status, headers: r.headers, text, json: () => JSON.parse(text) };
}

export const postEvents = (recordingId: string, events: unknown, key = testEnv().publicKey, headers: Record<string, string> = {}) =>
  api(`/recordings/${recordingId}/events`, {
    method: 'POST',
    key,
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof events === 'string' ? events : JSON.stringify(events),
  });

/** A small plausible rrweb recording: Meta, FullSnapshot, then incremental events. */
export function sampleEvents(n: number, start = Date.now(), opts: { width?: number; height?: number; href?: string } = {}) {
  const events: { type: number; timestamp: number; data: Record<string, unknown>; sequenceId?: number }[] = [
    { type: 4, timestamp: start, data: { href: opts.href ?? 'https://example.test/page', width: opts.width ?? 1024, height: opts.height ?? 768 } },
    {
      type: 2,
      timestamp: start + 1,
      data: {
        // A minimal renderable document: <html><head></head><body>Sample</body></html>.
        node: {
          type: 0,
          id: 1,
          childNodes: [
            {
              type: 2,
              tagName: 'html',
              attributes: {},
              id: 2,
              childNodes: [
                { type: 2, tagName: 'head', attributes: {}, childNodes: [], id: 3 },
                { type: 2, tagName: 'body', attributes: {}, childNodes: [{ type: 3, textContent: 'Sample', id: 5 }], id: 4 },
              ],
            },
          ],
        },
        initialOffset: { left: 0, top: 0 },
      },
    },
  ];
  for (let i = 2; i < n; i++) events.push({ type: 3, timestamp: start + i, data: { source: 1, positions: [{ x: i, y: i, id: 1, timeOffset: 0 }] } });
  return events.slice(0, n);
}

export interface RawRes {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A GET of the test service with exactly these headers and the bytes as sent (fetch would add and undo its own Accept-Encoding). */
export function rawGet(path: string, headers: Record<string, string> = {}): Promise<RawRes> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${testEnv().baseUrl}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
