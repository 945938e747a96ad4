// The page's Content-Security-Policy against delivery. A blocked WebSocket to the server leaves HTTP
// (said once on the console); a blocked request leaves nothing, and retrying it forever would only fill
// memory and the console, so the session stops itself.
import { blockedByPolicy } from './protocol';
import type { WebSocketTransport } from './websocket-transport';

/** What the reaction needs from the session that owns it. */
export interface PolicyHost {
  /** The session has stopped, or nothing can be delivered any more: a violation changes nothing. */
  isDone(): boolean;
  pump(): void;
  /** Nothing recorded here can ever be delivered: say why once, and stop. */
  selfStop(reason: string): void;
}

/** Reacts to a `securitypolicyviolation` event of the page. */
export function reactToPolicy(ev: SecurityPolicyViolationEvent, serverUrl: string, socket: WebSocketTransport, host: PolicyHost): void {
  if (host.isDone()) return;
  const blocked = blockedByPolicy(ev, serverUrl);
  if (blocked === null) return;
  const policy = `the page's Content-Security-Policy (${ev.effectiveDirective})`;
  if (blocked === 'websocket') {
    if (socket.blocked) return;
    console.warn(`[tapedeck] ${policy} blocks WebSockets to ${serverUrl}; sending over HTTP instead`);
    socket.block();
    host.pump();
    return;
  }
  host.selfStop(`${policy} blocks requests to ${serverUrl}. Allow it in connect-src`);
}
