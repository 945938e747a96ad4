// Run in the viewer's browser by the hosted player in live mode: what the live bar says, from the
// live view's state (live-player.ts keeps the state and writes this into the page). `said` is what
// a screen reader hears, only when it changes: the state, never the seconds behind.

export interface BarState {
  /** Why the feed is over (an `end` reason or refused:<status>). */
  ended?: string;
  sessionLive?: boolean;
  following: boolean;
  connected: boolean;
  /** The feed was refused (429, 5xx) and is tried again in `inMs`. */
  retry?: { what: string; inMs: number };
  /** The replay is built (a FullSnapshot came). */
  shown: boolean;
  playing: boolean;
  behindText: string;
  /** Something came from the feed already (a reconnect, not the first connection). */
  heard: boolean;
}

export interface BarView {
  badge: 'LIVE' | 'ENDED' | 'OFFLINE';
  /** The bar's class: following (red badge), behind, ended, closed. */
  cls: string;
  text: string;
  said: string;
}

const END_MESSAGES: Record<string, string> = {
  deleted: 'This recording was deleted.',
  link_expired: 'The link expired: reload the page to keep watching.',
  slow_viewer: 'The live view fell too far behind and was stopped: reload the page to follow again.',
  'refused:404': 'This recording no longer exists.',
  'refused:401': 'The link is no longer valid: reload the page.',
  'refused:403': 'The link is no longer valid: reload the page.',
};

/** What the live bar says when the feed is over. */
export function endMessage(reason: string): string {
  if (END_MESSAGES[reason]) return END_MESSAGES[reason];
  if (reason.indexOf('refused:') === 0) return 'The live feed could not be opened (HTTP ' + reason.slice(8) + ').';
  return 'The live view ended.';
}

export function liveBarView(s: BarState): BarView {
  if (s.ended) {
    const text = endMessage(s.ended);
    return { badge: 'OFFLINE', cls: 'closed', text, said: text };
  }
  if (s.sessionLive === false && s.following) return { badge: 'ENDED', cls: 'ended', text: 'Session ended', said: 'Session ended' };
  const cls = s.following && s.connected ? 'following' : 'behind';
  if (!s.connected && s.following) {
    if (s.retry) {
      const wait = Math.ceil(s.retry.inMs / 1000);
      return { badge: 'LIVE', cls, text: s.retry.what + (wait > 0 ? ': trying again in ' + wait + ' s' : ': trying again…'), said: s.retry.what };
    }
    return { badge: 'LIVE', cls, text: s.heard ? 'Reconnecting…' : 'Connecting…', said: s.heard ? 'Reconnecting' : 'Connecting' };
  }
  if (!s.shown) {
    const text = s.sessionLive === false ? 'Session ended: nothing to show' : 'Waiting for the recorded page…';
    return { badge: 'LIVE', cls, text, said: text.replace(/…$/, '') };
  }
  const state = s.following ? '' : s.playing ? '' : ' · paused';
  return {
    badge: 'LIVE',
    cls,
    text: s.behindText + state + (s.sessionLive === false ? ' · session ended' : ''),
    said: s.following ? 'Following live' : s.playing ? 'Playing back, behind live' : 'Paused',
  };
}
