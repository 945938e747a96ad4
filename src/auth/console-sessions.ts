// Console sign-ins: a private key (or the admin token) exchanged for a random session id that the
// browser holds only as an HttpOnly, SameSite=Strict cookie; the key itself stays on the server side
// as the key's handle. Sessions are shared by every instance through a JetStream KV bucket
// (tapedeck_sessions, expiring entries after CONSOLE_SESSION_TTL_SECONDS), keyed by the SHA-256 of
// the id, so neither the bucket nor a log holds a usable cookie. Each instance keeps the bucket in
// memory through a watch, and asks the bucket itself for an id it has not seen yet (a browser signed
// in on another instance a moment ago). A session ends at its expiry, at sign-out, and when its key
// is revoked or its tenant refused. Changes (any method but GET/HEAD) must also carry the session's
// CSRF token in X-Tapedeck-Csrf, which another site can neither read nor send (CORS refuses the header).
import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger, OnApplicationShutdown, Optional } from '@nestjs/common';
import type { KV, KvEntry } from 'nats';
import { AppError } from '../common/app-error';
import { APP_CONFIG, AppConfig } from '../config/config';
import { BootService } from '../infrastructure/boot.service';
import { NatsClient } from '../infrastructure/nats/nats-connection';
import { SESSIONS_BUCKET } from '../infrastructure/nats/subjects';
import { safeEqual } from './key-material';
import { TenantRegistry } from './tenant-registry';

export const SESSION_COOKIE = 'td_session';
export const CSRF_HEADER = 'x-tapedeck-csrf';

type Who = { kind: 'tenant'; tenantId: string; keyHandle: string } | { kind: 'admin' };
/** What the bucket holds of a session (under the SHA-256 of its id). */
type StoredSession = { csrf: string; expires: number } & Who;
export type ConsoleSession = { id: string } & StoredSession;

/** Where sessions are shared: a JetStream KV bucket, a map in unit tests. */
export interface SessionStore {
  put(key: string, s: StoredSession): Promise<void>;
  get(key: string): Promise<StoredSession | undefined>;
  delete(key: string): Promise<void>;
  /** Calls `apply` for every entry now and for every later change (undefined: deleted or expired). */
  watch(apply: (key: string, s: StoredSession | undefined) => void): Promise<() => void>;
}

/** The value of cookie `name` in a Cookie header, if any. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;
const storeKey = (id: string) => `s.${createHash('sha256').update(id).digest('hex')}`;

@Injectable()
export class ConsoleSessions implements OnApplicationShutdown {
  private readonly logger = new Logger('ConsoleSessions');
  /** Every live session the store holds, by store key (filled by the watch). */
  private readonly sessions = new Map<string, StoredSession>();
  private readonly ttlMs: number;
  private store?: SessionStore;
  private stopWatch?: () => void;

  constructor(
    private readonly registry: TenantRegistry,
    @Inject(APP_CONFIG) cfg: Pick<AppConfig, 'CONSOLE_SESSION_TTL_SECONDS' | 'STREAM_REPLICAS'>,
    @Optional() boot?: BootService,
    @Optional() nats?: NatsClient,
  ) {
    this.ttlMs = cfg.CONSOLE_SESSION_TTL_SECONDS * 1000;
    registry.onKeyRevoked((key) => this.drop((s) => s.kind === 'tenant' && s.keyHandle === key.handle));
    registry.onTenantRefused((tenantId) => this.drop((s) => s.kind === 'tenant' && s.tenantId === tenantId));
    if (boot && nats) {
      boot.addNatsStep({
        what: 'open the console sessions bucket',
        run: async () => this.open(await KvSessionStore.open(nats, cfg.STREAM_REPLICAS ?? 1, this.ttlMs)),
      });
    }
  }

  /** Starts sharing sessions through `store` (called at boot; unit tests pass a map). */
  async open(store: SessionStore): Promise<void> {
    this.store = store;
    this.stopWatch = await store.watch((key, s) => {
      if (s) this.sessions.set(key, s);
      else this.sessions.delete(key);
    });
  }

  onApplicationShutdown(): void {
    this.stopWatch?.();
  }

  /** A session for a private key: 401 for anything else (a public key, an unknown or revoked key). */
  async signIn(key: string, nowMs = Date.now()): Promise<ConsoleSession> {
    const rec = this.registry.authenticate(key);
    if (!rec) throw new AppError('unauthorized', 'Invalid API key');
    if (rec.kind !== 'secret') throw new AppError('unauthorized', 'The console needs a private key (secret_key_…), not a public one');
    this.registry.assertServing(rec.tenantId);
    return this.add({ kind: 'tenant', tenantId: rec.tenantId, keyHandle: rec.handle }, nowMs);
  }

  /** A session for the admin token, checked by the caller. */
  signInAdmin(nowMs = Date.now()): Promise<ConsoleSession> {
    return this.add({ kind: 'admin' }, nowMs);
  }

  /**
   * The live session a request's cookie names, checking the CSRF token on changes; undefined when
   * the request carries no session cookie. 401 for an unknown or expired session, 403 for a change
   * without the right token.
   */
  async fromRequest(cookieHeader: string | undefined, method: string, csrf: unknown, nowMs = Date.now()): Promise<ConsoleSession | undefined> {
    const id = cookieValue(cookieHeader, SESSION_COOKIE);
    if (id === undefined || id === '') return undefined;
    const key = storeKey(id);
    let s = SESSION_ID.test(id) ? this.sessions.get(key) : undefined;
    // Made on another instance a moment ago, before this one's watch delivered it: ask the bucket.
    if (!s && SESSION_ID.test(id) && this.store) s = await this.store.get(key);
    if (!s || s.expires <= nowMs) {
      if (s) this.forgetLater(key);
      throw new AppError('unauthorized', 'Your console session has expired or ended: sign in again');
    }
    if (!SAFE_METHODS.has(method.toUpperCase()) && !(typeof csrf === 'string' && safeEqual(csrf, s.csrf))) {
      throw new AppError('forbidden', `A change made with a console session needs its CSRF token in ${CSRF_HEADER}`);
    }
    return { id, ...s };
  }

  /** Ends the session on every instance (resolves once the bucket has the deletion). */
  async signOut(id: string): Promise<void> {
    await this.forget(storeKey(id));
  }

  get size(): number {
    return this.sessions.size;
  }

  private async add(who: Who, nowMs: number): Promise<ConsoleSession> {
    this.drop((s) => s.expires <= nowMs);
    const id = randomBytes(32).toString('base64url');
    const stored = { ...who, csrf: randomBytes(24).toString('base64url'), expires: nowMs + this.ttlMs } as StoredSession;
    const key = storeKey(id);
    // Stored before the cookie is set: any instance the browser reaches next finds it.
    await this.store?.put(key, stored);
    this.sessions.set(key, stored);
    return { id, ...stored };
  }

  private async forget(key: string): Promise<void> {
    this.sessions.delete(key);
    await this.store?.delete(key);
  }

  private forgetLater(key: string): void {
    this.forget(key).catch((err: unknown) => this.logger.warn({ msg: 'could not end a console session in the bucket', err: String(err) }));
  }

  /** Ends the matching sessions here and in the bucket (every instance does it: deletion is idempotent). */
  private drop(match: (s: StoredSession) => boolean): void {
    for (const [key, s] of this.sessions) if (match(s)) this.forgetLater(key);
  }
}

const enc = new TextEncoder();

/** Sessions in the JetStream KV bucket `tapedeck_sessions`; entries expire with the sessions' lifetime. */
export class KvSessionStore implements SessionStore {
  private constructor(private readonly kv: KV) {}

  static async open(nats: NatsClient, replicas: number, ttlMs: number): Promise<KvSessionStore> {
    return new KvSessionStore(await nats.js.views.kv(SESSIONS_BUCKET, { history: 1, replicas, ttl: ttlMs }));
  }

  async put(key: string, s: StoredSession): Promise<void> {
    await this.kv.put(key, enc.encode(JSON.stringify(s)));
  }

  async get(key: string): Promise<StoredSession | undefined> {
    return parse(await this.kv.get(key));
  }

  async delete(key: string): Promise<void> {
    // A purge leaves a marker without the value: nothing of the session (nor its tenant) stays behind.
    await this.kv.purge(key);
  }

  async watch(apply: (key: string, s: StoredSession | undefined) => void): Promise<() => void> {
    let initialized!: () => void;
    const ready = new Promise<void>((r) => (initialized = r));
    const w = await this.kv.watch({ key: 's.>', initializedFn: () => initialized() });
    void (async () => {
      for await (const e of w) apply(e.key, parse(e));
    })();
    await ready;
    return () => w.stop();
  }
}

function parse(e: KvEntry | null): StoredSession | undefined {
  if (!e || e.operation !== 'PUT') return undefined;
  return JSON.parse(e.string()) as StoredSession;
}
