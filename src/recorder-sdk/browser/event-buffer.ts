// Collects serialised events until a batch is cut: at `maxEvents` events or about `maxBytes` of JSON
// (the caller also cuts on a timer). Events are kept as JSON text, serialised once.
export interface CutBatch {
  /** The events as a JSON array text: the HTTP body, and the `events` of a WebSocket batch frame. */
  body: string;
  events: number;
}

export class EventBuffer {
  private parts: string[] = [];
  private chars = 2;

  constructor(
    readonly maxEvents = 200,
    readonly maxBytes = 512 * 1024,
  ) {}

  /** Adds one serialised event; true when the buffer is full and should be cut now. */
  add(json: string): boolean {
    this.parts.push(json);
    this.chars += json.length + 1;
    return this.parts.length >= this.maxEvents || this.chars >= this.maxBytes;
  }

  get size(): number {
    return this.parts.length;
  }

  take(): CutBatch | null {
    if (this.parts.length === 0) return null;
    const batch = { body: `[${this.parts.join(',')}]`, events: this.parts.length };
    this.parts = [];
    this.chars = 2;
    return batch;
  }
}
