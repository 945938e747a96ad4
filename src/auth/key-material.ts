// Key formats and hashing. API keys are stored only as SHA-256 hashes; signing secrets are stored as
// given, because the service signs links with them.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type KeyKind = 'public' | 'secret';
export const KEY_PREFIX: Record<KeyKind, string> = { public: 'public_key_svc_', secret: 'secret_key_svc_' };

export const TENANT_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Dots allowed inside only (the id becomes part of a KV key: no empty tokens). */
export const SIGNING_KEY_ID = /^(?=.{1,64}$)[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;

const token = (bytes: number) => randomBytes(bytes).toString('base64url');

export const generateKey = (kind: KeyKind) => KEY_PREFIX[kind] + token(24);
export const generateSigningSecret = () => token(32);

export function kindOfKey(key: string): KeyKind | null {
  if (key.startsWith(KEY_PREFIX.public)) return 'public';
  if (key.startsWith(KEY_PREFIX.secret)) return 'secret';
  return null;
}

export const hashKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

/** A short, non-secret handle for a key (for listings and revocation). */
export const keyHandle = (hash: string) => hash.slice(0, 16);

export function hmacHex(secret: string, message: string): string {
  return createHmac('sha256', secret).update(message, 'utf8').digest('hex');
}

/** Constant-time comparison of two strings (false for different lengths, without early exit on content). */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

/**
 * Whether an Authorization header is `Bearer <token>` for the token whose SHA-256 is `expectedHash`:
 * compared in constant time on digests, so not even the token's length leaks.
 */
export function bearerMatches(expectedHash: string, authorization: unknown): boolean {
  const m = typeof authorization === 'string' ? /^Bearer[ ]+(\S+)\s*$/i.exec(authorization) : null;
  return m !== null && safeEqual(hashKey(m[1]), expectedHash);
}
