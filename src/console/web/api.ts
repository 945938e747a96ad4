// Calls to the service from the console: same origin, the session cookie rides along; changes carry
// the session's CSRF token. A 401 means the session ended (the app shows the sign-in with a note).
export interface Session {
  kind: 'tenant' | 'admin';
  tenantId?: string;
  csrf: string;
  expiresAt: number;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let csrf = '';
let onSessionEnded: () => void = () => undefined;

export function useSession(s: Session | null, ended: () => void): void {
  csrf = s?.csrf ?? '';
  onSessionEnded = ended;
}

/** A message a person can act on, from a failed call. */
export function explain(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.status === 503) return `The service is not ready yet (${e.message}). Try again in a moment.`;
    if (e.status === 0) return 'The service cannot be reached. Check that it is running, then try again.';
    return e.message;
  }
  return String(e);
}

export async function call<T>(path: string, opts: { method?: string; body?: unknown; quiet401?: boolean } = {}): Promise<T> {
  const method = opts.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-tapedeck-csrf'] = csrf;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, credentials: 'same-origin', body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  } catch {
    throw new ApiError(0, 'network error');
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  if (!res.ok) {
    if (res.status === 401 && !opts.quiet401) onSessionEnded();
    let message = text;
    try {
      const j = JSON.parse(text) as { message?: string; issues?: { path?: unknown[]; message?: string }[] };
      message = j.issues?.length ? j.issues.map((i) => `${(i.path ?? []).join('.')}: ${i.message}`).join('; ') : (j.message ?? text);
    } catch {
      // plain text
    }
    throw new ApiError(res.status, message || `HTTP ${res.status}`);
  }
  return (text ? JSON.parse(text) : undefined) as T;
}

export const enc = encodeURIComponent;

/** A prefetched GET older than this is not used (the page asked for it much later: read afresh). */
const PREFETCH_MS = 5000;
const prefetched = new Map<string, { at: number; answer: Promise<unknown> }>();

/**
 * Starts a GET before the page that needs it is rendered: the recordings page's listing goes out beside
 * the session check at start, not after it (one round trip less on every load). The page takes it
 * with `callPrefetched`.
 */
export function prefetch(path: string): void {
  const answer = call(path, { quiet401: true });
  answer.catch(() => undefined); // taken later, or never (signed out)
  prefetched.set(path, { at: Date.now(), answer });
}

/**
 * `call(path)`, answered by its prefetch when one is recent enough (each prefetch answers once). A
 * prefetch that met a 401 went out before a sign-in: the call is made afresh.
 */
export function callPrefetched<T>(path: string): Promise<T> {
  const hit = prefetched.get(path);
  prefetched.delete(path);
  if (!hit || Date.now() - hit.at > PREFETCH_MS) return call<T>(path);
  return hit.answer.catch((e: unknown) => {
    if (e instanceof ApiError && e.status === 401) return call<T>(path);
    throw e;
  }) as Promise<T>;
}
