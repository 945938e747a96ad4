// Run in the browser by the screenshot page and the hosted player: everything done to a recording
// before rrweb's Replayer gets it, in one place, so that a screenshot and the player load and show
// the same. `prepareReplay(events)` sanitises the events in place (replay-sanitizer.ts), then answers
// the style rules of replay-fixes.ts and how many values the sanitiser removed or rewrote.
// `createReplayPreparer()` does the same for a live recording, part by part (the backfill, then
// each batch): every part is sanitised knowing the earlier ones, and a page view's Meta event at the
// end of a part waits for the next part, where its FullSnapshot is (replay-fixes.ts moves its time).
import { createReplayFixes, replayFixes } from './replay-fixes';
import { createReplaySanitizer, sanitizeReplay } from './replay-sanitizer';

export function prepareReplay(events: unknown[]): { insertStyleRules: string[]; sanitized: number } {
  const sanitized = sanitizeReplay(events);
  return { insertStyleRules: replayFixes(events), sanitized };
}

export interface PreparedPart {
  /** The part's events to hand on now, sanitised (in place), in time order. */
  events: unknown[];
  /** Every style rule so far, for the Replayer's insertStyleRules. */
  insertStyleRules: string[];
  /** Values removed or rewritten in this part. */
  sanitized: number;
}

const timeOf = (e: unknown): number => {
  const t = typeof e === 'object' && e !== null ? (e as { timestamp?: unknown }).timestamp : undefined;
  return typeof t === 'number' ? t : 0;
};

export function createReplayPreparer(): (part: unknown[]) => PreparedPart {
  const sanitize = createReplaySanitizer();
  const fixes = createReplayFixes();
  let held: unknown[] = [];
  return (part) => {
    const fresh = part.slice().sort((a, b) => timeOf(a) - timeOf(b));
    const sanitized = sanitize(fresh);
    const insertStyleRules = fixes(fresh);
    const wasHeld = held.length > 0;
    let events = held.concat(fresh);
    held = [];
    // Held once at most: a Meta whose snapshot never comes is handed on with the next part.
    const pending = fixes.pendingMeta();
    const at = pending === null || wasHeld ? -1 : events.indexOf(pending);
    if (at >= 0) {
      held = events.slice(at);
      events = events.slice(0, at);
    }
    return { events, insertStyleRules, sanitized };
  };
}
