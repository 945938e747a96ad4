// A Server-Sent Events client for the live feed specs: parses messages as EventSource does (fields
// id, event, data, retry; comments ignored; a message dispatched at its blank line), keeps them in
// order, and lets a spec wait for one, pause reading (a slow viewer) or close.
import { request, IncomingMessage, ClientRequest } from 'node:http';

export interface SseMessage {
  id?: string;
  event: string;
  data: string;
  /** When it was dispatched here (epoch ms). */
  receivedAt: number;
}

export class SseClient {
  readonly messages: SseMessage[] = [];
  comments = 0;
  closed = false;
  private buffer = '';
  private current: { id?: string; event?: string; data: string[] } = { data: [] };
  private waiters: (() => void)[] = [];

  private constructor(
    readonly status: number,
    readonly headers: IncomingMessage['headers'],
    readonly body: string,
    private readonly res: IncomingMessage,
    private readonly req: ClientRequest,
  ) {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => this.feed(chunk));
    res.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  /** Opens `url` (GET); resolves once the response head arrived (the body of an error status is read whole). */
  static open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    return new Promise((resolve, reject) => {
      const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
        if (res.statusCode !== 200) {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve(new SseClient(res.statusCode ?? 0, res.headers, text, res, req)));
          return;
        }
        resolve(new SseClient(200, res.headers, '', res, req));
      });
      req.on('error', reject);
      req.end();
    });
  }

  /** The `events` messages' events, in order. */
  get events(): { type: number; timestamp: number; originalTimestamp?: number; data?: unknown }[] {
    return this.messages.filter((m) => m.event === 'events').flatMap((m) => JSON.parse(m.data) as never[]);
  }

  /** The id of the last message that carried one. */
  get lastId(): string | undefined {
    for (let i = this.messages.length - 1; i >= 0; i--) if (this.messages[i].id !== undefined) return this.messages[i].id;
    return undefined;
  }

  /** Resolves once `pred` holds for the messages so far (fails after `ms`, or when the feed closed without it). */
  async waitFor(pred: (messages: SseMessage[]) => boolean, ms = 15_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!pred(this.messages)) {
      if (this.closed) throw new Error(`feed closed; messages: ${this.describe()}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out; messages: ${this.describe()}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 250));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Resolves once the server closed the feed. */
  async waitClosed(ms = 15_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error(`not closed; messages: ${this.describe()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  pause(): void {
    this.res.pause();
  }

  resume(): void {
    this.res.resume();
  }

  close(): void {
    this.req.destroy();
    this.closed = true;
  }

  private describe(): string {
    return JSON.stringify(this.messages.map((m) => ({ id: m.id, event: m.event, data: m.data.slice(0, 80) })));
  }

  private feed(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + (this.buffer.startsWith('\r\n', nl) ? 2 : 1));
      this.line(line);
    }
    this.wake();
  }

  private line(line: string): void {
    if (line === '') {
      if (this.current.data.length)
        this.messages.push({ id: this.current.id, event: this.current.event ?? 'message', data: this.current.data.join('\n'), receivedAt: Date.now() });
      this.current = { data: [] };
      return;
    }
    if (line.startsWith(':')) {
      this.comments++;
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') this.current.data.push(value);
    else if (field === 'event') this.current.event = value;
    else if (field === 'id') this.current.id = value;
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}
