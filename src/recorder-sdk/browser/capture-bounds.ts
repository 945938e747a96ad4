// Bounds on what rrweb's console and network plugins hand to the recording, applied before an event is
// recorded: a page that logs in a loop, logs a huge object or polls every 100 ms must not fill the
// recording (or the customer's uplink). The shapes stay the plugins' own, so a replay or a projection
// reads our events as it reads those of any rrweb client. No DOM here: unit-tested under Node.

/** A console plugin payload (`rrweb/console@1`): each argument is the JSON text of a value. */
export interface LogData {
  level: string;
  trace: string[];
  payload: string[];
}

/** One request of a network plugin payload (`rrweb/network@1`); only the fields we bound. */
export interface NetworkRequestData {
  name: string;
  requestHeaders?: Record<string, string>;
  requestBody?: string | null;
  responseHeaders?: Record<string, string>;
  responseBody?: string | null;
}

export interface NetworkData<R extends NetworkRequestData = NetworkRequestData> {
  requests: R[];
  isInitial?: boolean;
}

export const CONSOLE_LIMITS = {
  /** Characters of one argument's JSON text; a longer one becomes a string cut to this length. */
  argumentLength: 2000,
  /** Arguments of one message; the rest are left out. */
  arguments: 10,
  /** Stack frames of an error, assert or trace (other levels keep the call site only). */
  stackFrames: 20,
  frameLength: 300,
  /** Error-level events (console.error, uncaught errors, unhandled rejections) per minute. */
  errorsPerMinute: 60,
  /** Events of every other level per minute. */
  othersPerMinute: 100,
};

export const NETWORK_LIMITS = {
  urlLength: 2000,
  /** Characters of a request or response body, when bodies are recorded at all. */
  bodyLength: 10_000,
  /** Characters of a header value, when headers are recorded at all. */
  headerLength: 1000,
  requestsPerMinute: 300,
};

const MINUTE_MS = 60_000;
const ELLIPSIS = '…';
/** Levels whose whole stack is kept: those that report a problem or ask for the stack. */
const STACK_LEVELS = ['error', 'assert', 'trace'];
/** The plugin's own complaint about an uncaught non-Error (`throw 'text'`): about the plugin, not the page. */
const PARSE_COMPLAINT = JSON.stringify('[console-record-plugin]: Failed to parse error object:');
/** A rejection with a non-Error: the plugin's trace is then that of its own handler, in the recorder. */
const BARE_REJECTION = JSON.stringify('Uncaught (in promise)');

/** A count per fixed minute: how much of a request fits, and whether this is the window's first refusal. */
export class MinuteBudget {
  private windowStart = Number.NEGATIVE_INFINITY;
  private used = 0;
  private refused = false;

  constructor(readonly perMinute: number) {}

  take(now: number, wanted = 1): { granted: number; firstRefusal: boolean } {
    if (now - this.windowStart >= MINUTE_MS || now < this.windowStart) {
      this.windowStart = now;
      this.used = 0;
      this.refused = false;
    }
    const granted = Math.min(wanted, this.perMinute - this.used);
    this.used += granted;
    const firstRefusal = granted < wanted && !this.refused;
    if (granted < wanted) this.refused = true;
    return { granted, firstRefusal };
  }
}

/** `text` cut to `max` characters, with an ellipsis saying so. */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max) + ELLIPSIS;
}

/** One argument's JSON text within `max` characters, still valid JSON (a cut one becomes a string). */
export function boundArgument(json: string, max: number): string {
  if (typeof json !== 'string' || json.length <= max) return json;
  let text = json;
  try {
    const value: unknown = JSON.parse(json);
    if (typeof value === 'string') text = value;
  } catch {
    // not JSON after all: cut the text itself
  }
  return JSON.stringify(cut(text, max));
}

/** A console event within CONSOLE_LIMITS (the per-minute count is ConsoleLimiter's). */
export function boundLog(data: LogData): LogData {
  const payload = Array.isArray(data.payload) ? data.payload : [];
  const trace = Array.isArray(data.trace) ? data.trace : [];
  const frames = payload[0] === BARE_REJECTION ? 0 : STACK_LEVELS.includes(data.level) ? CONSOLE_LIMITS.stackFrames : 1;
  const kept = payload.slice(0, CONSOLE_LIMITS.arguments).map((arg) => boundArgument(arg, CONSOLE_LIMITS.argumentLength));
  if (payload.length > kept.length) kept.push(JSON.stringify(`[tapedeck] ${payload.length - kept.length} more arguments not recorded`));
  return {
    ...data,
    trace: trace.slice(0, frames).map((frame) => (typeof frame === 'string' ? cut(frame, CONSOLE_LIMITS.frameLength) : frame)),
    payload: kept,
  };
}

/**
 * Console events per minute: error-level ones on a budget of their own, so a page that logs in a loop
 * does not hide its errors. The first event refused in a minute is replaced by a warning that says so.
 */
export class ConsoleLimiter {
  private readonly errors = new MinuteBudget(CONSOLE_LIMITS.errorsPerMinute);
  private readonly others = new MinuteBudget(CONSOLE_LIMITS.othersPerMinute);

  admit(data: LogData, now: number): LogData | undefined {
    if (Array.isArray(data.payload) && data.payload[0] === PARSE_COMPLAINT) return undefined;
    const isError = data.level === 'error';
    const budget = isError ? this.errors : this.others;
    const { granted, firstRefusal } = budget.take(now);
    if (granted === 1) return boundLog(data);
    if (!firstRefusal) return undefined;
    const what = isError ? 'errors' : 'messages';
    return {
      level: 'warn',
      trace: [],
      payload: [JSON.stringify(`[tapedeck] over ${budget.perMinute} console ${what} in a minute: the rest of this minute's are not recorded`)],
    };
  }
}

function boundHeaders(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers || typeof headers !== 'object') return headers;
  const bounded: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) bounded[key] = typeof value === 'string' ? cut(value, NETWORK_LIMITS.headerLength) : value;
  return bounded;
}

function boundBody(body: string | null | undefined): string | null | undefined {
  return typeof body === 'string' ? cut(body, NETWORK_LIMITS.bodyLength) : body;
}

/** A request within NETWORK_LIMITS: URL, bodies and header values cut; what is absent stays absent. */
export function boundRequest<R extends NetworkRequestData>(request: R): R {
  const bounded: R = { ...request, name: typeof request.name === 'string' ? cut(request.name, NETWORK_LIMITS.urlLength) : request.name };
  if ('requestHeaders' in request) bounded.requestHeaders = boundHeaders(request.requestHeaders);
  if ('responseHeaders' in request) bounded.responseHeaders = boundHeaders(request.responseHeaders);
  if ('requestBody' in request) bounded.requestBody = boundBody(request.requestBody);
  if ('responseBody' in request) bounded.responseBody = boundBody(request.responseBody);
  return bounded;
}

/** Network events within NETWORK_LIMITS; requests over the minute's count are left out. */
export class NetworkLimiter {
  private readonly budget = new MinuteBudget(NETWORK_LIMITS.requestsPerMinute);

  admit<R extends NetworkRequestData>(data: NetworkData<R>, now: number): NetworkData<R> | undefined {
    const requests = Array.isArray(data.requests) ? data.requests : [];
    const { granted } = this.budget.take(now, requests.length);
    if (granted === 0) return undefined;
    return { ...data, requests: requests.slice(0, granted).map(boundRequest) };
  }
}
