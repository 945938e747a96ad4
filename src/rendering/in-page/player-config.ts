// The JSON block the player page carries for its bootstrap (player/player-page.ts writes it,
// player-bootstrap.ts reads it): one type, so the page builder and the page cannot drift apart.
export interface PlayerPageConfig {
  /** Same-origin URL of the events (signed when the viewer is untrusted). */
  eventsUrl: string;
  controls: boolean;
  autoplay: boolean;
  /** Follow the recording live: eventsUrl is then its Server-Sent Events feed (docs/live.md). */
  live: boolean;
  mode: 'standard' | 'minimal' | 'capture';
  speed: number;
  /** Where playback starts; out-of-range positions start at the nearest end. */
  time: { kind: 'offset' | 'percent' | 'epoch'; value: number };
  /**
   * The recording's first and last event times (epoch ms) as projected, when eventsUrl is its own
   * events: a page that starts later first loads a window from the nearest keyframe (progressive-load.ts).
   */
  span?: { first: number; last: number };
}
