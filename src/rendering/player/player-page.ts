// The hosted player page: static HTML around rrweb-player, served with a strict CSP whose nonce
// admits only our inline bootstrap (in-page/player-bootstrap.ts, bundled into dist/in-page/). The
// page carries no credential of its own: it fetches the events from the (already signed)
// same-origin eventsUrl.
import { randomBytes } from 'node:crypto';
import { isSourceList } from '../../common/security-headers';
import type { PlayerPageConfig } from '../in-page/player-config';
import { inPageScript } from '../shared/in-page-scripts';
import type { TimeSelector } from '../shared/time-selector';
import type { PlayerMode } from './player.dto';

export interface PlayerPageInput {
  /** Same-origin URL of the events, signed by the caller when the viewer is untrusted. */
  eventsUrl: string;
  controls: boolean;
  autoplay: boolean;
  /** Follow the recording live: eventsUrl is its live feed (…/events?…&live=true). */
  live?: boolean;
  mode: PlayerMode;
  speed: number;
  time: TimeSelector;
  /** The recording's first and last event times, when eventsUrl is its own events (PlayerPageConfig.span). */
  span?: { first: number; last: number };
  /** PLAYER_FRAME_ANCESTORS, e.g. "'self' https://app.example.com". */
  frameAncestors: string;
  /** PLAYER_ASSET_SOURCES: where the recorded site's images, fonts, stylesheets and media may load from. */
  assetSources?: string;
  title?: string;
  /** Short facts shown under the title in standard mode (player-heading.ts). */
  details?: string[];
  /** Where AssetsController is mounted. */
  assetsBase?: string;
  /** PlayerAssets.version: makes the asset URLs immutable. */
  assetVersion?: string;
  /** Fixed nonce for tests; a fresh random one otherwise. */
  nonce?: string;
}

export interface PlayerPage {
  html: string;
  headers: Record<string, string>;
}

const API_KEY = /(?:secret|public)_key_svc_/;

export function buildPlayerPage(input: PlayerPageInput): PlayerPage {
  if ([input.eventsUrl, input.title ?? '', ...(input.details ?? [])].some((s) => API_KEY.test(s))) {
    throw new Error('refusing to build a player page that contains an API key');
  }
  if (!isSourceList(input.frameAncestors)) {
    throw new Error('PLAYER_FRAME_ANCESTORS must be a space-separated source list');
  }
  const nonce = input.nonce ?? randomBytes(18).toString('base64');
  const base = (input.assetsBase ?? '/assets').replace(/\/+$/, '');
  const v = input.assetVersion ? `?v=${encodeURIComponent(input.assetVersion)}` : '';
  const title = input.title ?? 'Session replay';
  const config: PlayerPageConfig = {
    eventsUrl: input.eventsUrl,
    controls: input.mode === 'capture' ? false : input.controls,
    autoplay: input.autoplay,
    live: input.live === true,
    mode: input.mode,
    speed: input.speed,
    time: input.time,
    ...(input.span ? { span: input.span } : {}),
  };
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${escapeHtml(`${base}/rrweb-player.css${v}`)}">
<style>${PAGE_CSS}</style>
</head>
<body class="mode-${input.mode}${config.live ? ' live' : ''}">
${input.mode === 'standard' ? `${header(title, input.details ?? [])}\n` : ''}<main><div id="player"></div>${config.live ? liveBar(input.mode, config.controls) : ''}<p id="status" role="alert" hidden></p></main>
<script type="application/json" id="tapedeck-config">${jsonForHtml(config)}</script>
<script nonce="${nonce}">${inPageScript('player-bootstrap')}</script>
<script src="${escapeHtml(`${base}/rrweb-player.js${v}`)}"></script>
</body>
</html>
`;
  // The replayed page is an about:blank frame of this page, so these also govern what it loads: its
  // images, fonts and media come from PLAYER_ASSET_SOURCES or are inline, never from this service
  // ('self' is for the player's own script and stylesheet), and its frames are blank (the recording
  // is sanitised in the page too, in-page/replay-sanitizer.ts: a frame's URL made the viewer's
  // browser connect to its host even though this policy then refused the frame).
  const remote = (input.assetSources ?? '').trim().split(/\s+/).filter(Boolean).join(' ');
  const withRemote = (sources: string) => (remote ? `${sources} ${remote}` : sources);
  const csp = [
    "default-src 'none'",
    `script-src 'self' 'nonce-${nonce}'`,
    withRemote("style-src 'self' 'unsafe-inline'"),
    withRemote('img-src data: blob:'),
    withRemote('font-src data:'),
    ...(remote ? [`media-src ${remote}`] : []),
    "connect-src 'self'",
    'frame-src about:',
    "child-src 'self' blob:",
    `frame-ancestors ${input.frameAncestors}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return {
    html,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': csp,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
    },
  };
}

const PAGE_CSS = `
html,body{margin:0;height:100%}
body{display:flex;flex-direction:column;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;background:#f3f4f6;color:#111827}
header{flex:none;min-height:48px;box-sizing:border-box;display:flex;flex-direction:column;justify-content:center;padding:6px 16px;background:#111827;color:#f9fafb}
header h1{margin:0;font-size:16px;font-weight:600;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
header ul{display:flex;flex-wrap:wrap;gap:4px 12px;margin:2px 0 0;padding:0;list-style:none;font-size:12px;color:#d1d5db}
header li{max-width:40ch;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
main{flex:1;min-height:0;position:relative;box-sizing:border-box;padding:16px}
#player{width:100%;height:100%;display:flex;align-items:center;justify-content:center;overflow:hidden}
#status{position:absolute;inset:0;margin:auto;height:fit-content;max-width:32em;padding:16px;text-align:center;background:#fff;border:1px solid #e5e7eb;border-radius:6px}
body.mode-minimal main,body.mode-capture main{padding:0}
body.mode-capture{background:#fff}
body.mode-capture .rr-player{box-shadow:none;border-radius:0}
body.mode-capture .replayer-mouse,body.mode-capture .replayer-mouse-tail{display:none!important}
body.live main{display:flex;flex-direction:column;gap:8px}
body.live #player{flex:1;min-height:0;height:auto}
#live-bar{flex:none;display:flex;flex-wrap:wrap;align-items:center;gap:8px;min-height:40px;padding:4px 8px;box-sizing:border-box;background:#fff;border:1px solid #e5e7eb;border-radius:6px;font-size:14px}
#live-bar[hidden]{display:none}
#live-bar .badge{flex:none;padding:2px 8px;border-radius:4px;font-weight:700;font-size:12px;letter-spacing:.05em;background:#6b7280;color:#fff}
#live-bar.following .badge{background:#dc2626}
#live-bar.ended .badge,#live-bar.closed .badge{background:#374151}
#live-text{flex:none;min-width:11em;color:#374151;font-variant-numeric:tabular-nums}
#live-bar button{flex:none;font:inherit;padding:4px 10px;border:1px solid #d1d5db;border-radius:4px;background:#f9fafb;color:#111827;cursor:pointer}
#live-bar button:disabled{opacity:.5;cursor:default}
#live-bar button:focus-visible,#live-position:focus-visible{outline:2px solid #2563eb;outline-offset:2px}
#live-position{flex:1;min-width:60px}
.sr-only{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
`;

// The live bar (in-page/live-player.ts drives it): a badge with how far behind the page is, then, with
// controls, native buttons and a range input (labelled, reachable by Tab, operated by keys as any
// form control). Hidden until the feed has sent something; none in capture mode.
function liveBar(mode: PlayerMode, controls: boolean): string {
  if (mode === 'capture') return '';
  const buttons = controls
    ? '<button type="button" id="live-toggle">Pause</button>' +
      '<button type="button" id="live-back" aria-label="Back 10 seconds">-10 s</button>' +
      '<input type="range" id="live-position" min="0" max="0" step="any" value="0" aria-label="Position in what was received">' +
      '<button type="button" id="live-go" disabled>Go live</button>'
    : '';
  return (
    '<div id="live-bar" role="group" aria-label="Live view" hidden>' +
    // The text changes every quarter second ("0.4 s behind"): screen readers hear the state instead.
    '<span id="live-badge" class="badge">LIVE</span><span id="live-text">Connecting…</span><span id="live-announce" class="sr-only" role="status"></span>' +
    buttons +
    '</div>'
  );
}

function header(title: string, details: string[]): string {
  const facts = details.length ? `<ul>${details.map((d) => `<li>${escapeHtml(d)}</li>`).join('')}</ul>` : '';
  return `<header><h1>${escapeHtml(title)}</h1>${facts}</header>`;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON that cannot close its <script> block nor open a comment. */
function jsonForHtml(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
