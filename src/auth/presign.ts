// Presigned links. signature = lowercase hex HMAC-SHA256(signing secret,
//   "GET /recordings/{recordingId} {tenantId} {expires}")   for a recording's read resources, or
//   "GET /replays/{groupingProp}/{replayValue} {tenantId} {expires}" for a replay,
// with path values as plain (decoded) text and expires in UNIX seconds, written exactly as in the
// link's query string (a verifier passes the digits it received, leading zeros and all).
import { hmacHex } from './key-material';

export type PresignScope = { kind: 'recording'; recordingId: string } | { kind: 'replay'; groupingProp: string; replayValue: string };

export function canonicalResource(scope: PresignScope): string {
  return scope.kind === 'recording' ? `GET /recordings/${scope.recordingId}` : `GET /replays/${scope.groupingProp}/${scope.replayValue}`;
}

export function stringToSign(scope: PresignScope, tenantId: string, expires: number | string): string {
  return `${canonicalResource(scope)} ${tenantId} ${expires}`;
}

export function sign(secret: string, scope: PresignScope, tenantId: string, expires: number | string): string {
  return hmacHex(secret, stringToSign(scope, tenantId, expires));
}

export interface PresignParams {
  tenantId: string;
  /** A received link's expires is passed on as a string: its digits are what was signed. */
  expires: number | string;
  keyId: string;
  signature: string;
}

/** Query string (without `?`) carrying a presigned credential. */
export function presignQuery(p: PresignParams): string {
  return new URLSearchParams({
    tenantId: p.tenantId,
    expires: String(p.expires),
    keyId: p.keyId,
    signature: p.signature,
  }).toString();
}
