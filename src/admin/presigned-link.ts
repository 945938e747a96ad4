// Builds presigned link paths the way a customer's server would (docs/presigned-links.md): the
// string to sign uses the decoded path values, the URL carries them percent-encoded.
import { AppError } from '../common/app-error';
import { pathSegment } from '../common/path-segment';
import { PresignScope, presignQuery, sign } from '../auth/presign';

/** Which read endpoint of the signed resource the link points at (one signature opens all of them). */
export const RECORDING_RESOURCES = { events: '/events', player: '/player', screenshot: '/screenshot.png', detail: '' } as const;
export const REPLAY_RESOURCES = { replay: '', events: '/events' } as const;
export type LinkResource = keyof typeof RECORDING_RESOURCES | keyof typeof REPLAY_RESOURCES;

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export function recordingScope(recordingId: string): PresignScope {
  if (!UUID.test(recordingId)) throw new AppError('bad_request', 'recording must be a UUID');
  return { kind: 'recording', recordingId: recordingId.toLowerCase() };
}

/** `<groupingProp>/<replayValue>`, split at the first slash (the value may contain slashes). */
export function replayScope(arg: string): PresignScope {
  const i = arg.indexOf('/');
  const groupingProp = i < 0 ? '' : arg.slice(0, i);
  const replayValue = i < 0 ? '' : arg.slice(i + 1);
  if (groupingProp.length < 1 || groupingProp.length > 100 || replayValue.length < 1 || replayValue.length > 500) {
    throw new AppError('bad_request', 'replay must be <groupingProp>/<replayValue> (1-100 and 1-500 characters)');
  }
  return { kind: 'replay', groupingProp, replayValue };
}

export function resourcePath(scope: PresignScope, resource?: LinkResource): string {
  if (scope.kind === 'recording') {
    const suffix = RECORDING_RESOURCES[(resource ?? 'events') as keyof typeof RECORDING_RESOURCES];
    if (suffix === undefined) throw new AppError('bad_request', `a recording link opens one of: ${Object.keys(RECORDING_RESOURCES).join(', ')}`);
    return `/recordings/${pathSegment(scope.recordingId)}${suffix}`;
  }
  const suffix = REPLAY_RESOURCES[(resource ?? 'replay') as keyof typeof REPLAY_RESOURCES];
  if (suffix === undefined) throw new AppError('bad_request', `a replay link opens one of: ${Object.keys(REPLAY_RESOURCES).join(', ')}`);
  return `/replays/${pathSegment(scope.groupingProp)}/${pathSegment(scope.replayValue)}${suffix}`;
}

/** Expiry (UNIX seconds) of a link signed now for `ttlSeconds`, refused beyond the service maximum. */
export function expiryFor(nowMs: number, ttlSeconds: number, maxTtlSeconds: number): number {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > maxTtlSeconds) {
    throw new AppError('bad_request', `ttl must be a whole number of seconds from 1 to ${maxTtlSeconds} (PRESIGN_MAX_TTL_SECONDS)`);
  }
  return Math.floor(nowMs / 1000) + ttlSeconds;
}

export interface SignedLink {
  /** Path and query, prefixed with the base URL when one is given. */
  url: string;
  expires: number;
  keyId: string;
}

export function signedLink(o: {
  scope: PresignScope;
  tenantId: string;
  keyId: string;
  secret: string;
  expires: number;
  resource?: LinkResource;
  baseUrl?: string;
}): SignedLink {
  const signature = sign(o.secret, o.scope, o.tenantId, o.expires);
  const query = presignQuery({ tenantId: o.tenantId, expires: o.expires, keyId: o.keyId, signature });
  const base = (o.baseUrl ?? '').replace(/\/+$/, '');
  return { url: `${base}${resourcePath(o.scope, o.resource)}?${query}`, expires: o.expires, keyId: o.keyId };
}
