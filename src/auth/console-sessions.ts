// Console sign-ins: a private key (or the admin token) exchanged for a random session id that the
// browser holds only as an HttpOnly, SameSite=Strict cookie; the key itself stays on the server side
// as the key's handle. Sessions live in this process's memory: a restart or another instance means
// signing in again (docs/console.md). A session ends at its expiry, at sign-out, and when its key is
// revoked or its tenant refused. Changes (any method but GET/HEAD) must also carry the session's
// CSRF token in X-Tapedeck-Csrf, which another site can neither read nor send (CORS refuses the header).
import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { APP_CONFIG, AppConfig } from '../config/config';
import { safeEqual } from './key-material';
import { TenantRegistry } from './tenant-registry';

export const SESSION_COOKIE = 'td_session';
export const CSRF_HEADER = 'x-tapedeck-csrf';

export type ConsoleSession = { id: string; csrf: string; expires: number } & ({ kind: 'tenant'; tenantId: string; keyHandle: string } | { kind: 'admin' });

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

@Injectable()
export class ConsoleSessions {
  private readonly sessions = new Map<string, ConsoleSession>();
  private readonly ttlMs: number;

  constructor(
    private readonly registry: TenantRegistry,
    @Inject(APP_CONFIG) cfg: Pick<AppConfig, 'CONSOLE_SESSION_TTL_SECONDS'>,
  ) {
    this.ttlMs = cfg.CONSOLE_SESSION_TTL_SECONDS * 1000;
    registry.onKeyRevoked((key) => this.drop((s) => s.kind === 'tenant' && s.keyHandle === key.handle));
    registry.onTenantRefused((tenantId) => this.drop((s) => s.kind === 'tenant' && s.tenantId === tenantId));
  }

  /** A session for a private key: 401 for anything else (a public key, an unknown or revoked key). */
  signIn(key: string, nowMs = Date.now()): ConsoleSession {
    const rec = this.registry.authenticate(key);
    if (!rec) throw new AppError('unauthorized', 'Invalid API key');
    if (rec.kind !== 'secret') throw new AppError('unauthorized', 'The console needs a private key (secret_key_…), not a public one');
    this.registry.assertServing(rec.tenantId);
    return this.add({ kind: 'tenant', tenantId: rec.tenantId, keyHandle: rec.handle }, nowMs);
  }

  /** A session for the admin token, checked by the caller. */
  signInAdmin(nowMs = Date.now()): ConsoleSession {
    return this.add({ kind: 'admin' }, nowMs);
  }

  /**
   * The live session a request's cookie names, checking the CSRF token on changes; undefined when
   * the request carries no session cookie. 401 for an unknown or expired session, 403 for a change
   * without the right token.
   */
  fromRequest(cookieHeader: string | undefined, method: string, csrf: unknown, nowMs = Date.now()): ConsoleSession | undefined {
    const id = cookieValue(cookieHeader, SESSION_COOKIE);
    if (id === undefined || id === '') return undefined;
    const s = this.sessions.get(id);
    if (!s || s.expires <= nowMs) {
      if (s) this.sessions.delete(id);
      throw new AppError('unauthorized', 'Your console session has expired or ended: sign in again');
    }
    if (!SAFE_METHODS.has(method.toUpperCase()) && !(typeof csrf === 'string' && safeEqual(csrf, s.csrf))) {
      throw new AppError('forbidden', `A change made with a console session needs its CSRF token in ${CSRF_HEADER}`);
    }
    return s;
  }

  signOut(id: string): void {
    this.sessions.delete(id);
  }

  get size(): number {
    return this.sessions.size;
  }

  private add(who: { kind: 'tenant'; tenantId: string; keyHandle: string } | { kind: 'admin' }, nowMs: number): ConsoleSession {
    this.sweep(nowMs);
    const s = { ...who, id: randomBytes(32).toString('base64url'), csrf: randomBytes(24).toString('base64url'), expires: nowMs + this.ttlMs } as ConsoleSession;
    this.sessions.set(s.id, s);
    return s;
  }

  private sweep(nowMs: number): void {
    this.drop((s) => s.expires <= nowMs);
  }

  private drop(match: (s: ConsoleSession) => boolean): void {
    for (const [id, s] of this.sessions) if (match(s)) this.sessions.delete(id);
  }
}
