// Checks a presigned link (docs/presigned-links.md) against the resource it is used for: the four
// parameters once each, expiry within PRESIGN_MAX_TTL_SECONDS, a hex signature (either letter case)
// of a live signing key over that resource. Used by the Authenticator for every request carrying a
// link, and through LinkSigner.verify for links handed back to the service (the player's eventsUrl).
// Failures are 403 with a message that never repeats the signature; a parameter given twice is a
// 400 naming it, as a repeated token or recordingId is (the request is malformed, not unauthorised).
import { AppError } from '../common/app-error';
import { ValidationError } from '../common/validation';
import { safeEqual } from './key-material';
import { PresignScope, sign } from './presign';
import type { TenantRegistry } from './tenant-registry';

export const PRESIGN_PARAMS = ['tenantId', 'expires', 'keyId', 'signature'] as const;

/** 64 hex digits: the service writes lowercase, and reads either case (hex spells the same bytes both ways). */
const SIGNATURE = /^[0-9a-f]{64}$/i;

/** Whether the query carries any presigned-link parameter. */
export const carriesLink = (query: Record<string, unknown>) => PRESIGN_PARAMS.some((k) => query[k] !== undefined);

/** The tenant and expiry of a link valid for `scope`; throws 403 otherwise (400 for a repeated parameter). */
export function verifyLink(
  scope: PresignScope,
  query: Record<string, unknown>,
  keys: Pick<TenantRegistry, 'signingKey'>,
  maxTtlSeconds: number,
  nowMs: number,
): { tenantId: string; expires: number } {
  // One value each: with two, a proxy or cache in front could read another link than this check.
  const repeated = PRESIGN_PARAMS.filter((k) => Array.isArray(query[k]));
  if (repeated.length) {
    throw new ValidationError(
      `Invalid query: ${repeated.join(', ')}: must be given once (a presigned link repeats a parameter)`,
      repeated.map((path) => ({ path, message: 'must be given once' })),
    );
  }
  const [tenantId, expiresRaw, keyId, signature] = PRESIGN_PARAMS.map((k) => (typeof query[k] === 'string' ? query[k] : undefined));
  if (!tenantId || !expiresRaw || !keyId || !signature) {
    throw new AppError('forbidden', 'Presigned link is incomplete: tenantId, expires, keyId and signature are all required');
  }
  if (!/^\d{1,12}$/.test(expiresRaw)) throw new AppError('forbidden', 'Presigned link has an invalid expires value');
  const expires = Number(expiresRaw);
  const now = Math.floor(nowMs / 1000);
  if (expires < now) throw new AppError('forbidden', 'Presigned link has expired');
  if (expires - now > maxTtlSeconds) throw new AppError('forbidden', 'Presigned link lives longer than this service allows');
  const key = keys.signingKey(tenantId, keyId);
  // "GET /replays/a/b/c" is as much a = "b/c" as "a/b" = c: links name grouping keys without slashes.
  if (scope.kind === 'replay' && scope.groupingProp.includes('/')) {
    throw new AppError('forbidden', 'A replay whose groupingProp contains "/" cannot be opened with a presigned link; use a private key');
  }
  // Signed over the digits as sent (docs/presigned-links.md), not over the number they spell.
  const candidates = key ? scopeVariants(scope).map((s) => sign(key.secret, s, tenantId, expiresRaw)) : [];
  const given = SIGNATURE.test(signature) ? signature.toLowerCase() : '';
  // Compare against a dummy when the key is unknown, so timing does not reveal which keys exist.
  const ok = key ? candidates.some((c) => safeEqual(c, given)) : safeEqual('0'.repeat(64), given) && false;
  if (!ok) throw new AppError('forbidden', 'Presigned link signature is invalid for this resource');
  return { tenantId, expires };
}

/** A recording id may be signed as sent or in canonical lowercase form. */
function scopeVariants(s: PresignScope): PresignScope[] {
  if (s.kind === 'recording' && s.recordingId !== s.recordingId.toLowerCase()) {
    return [s, { kind: 'recording', recordingId: s.recordingId.toLowerCase() }];
  }
  return [s];
}
