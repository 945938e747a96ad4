// Run in the browser by the screenshot page and the hosted player: everything done to a recording
// before rrweb's Replayer gets it, in one place, so that a screenshot and the player load and show
// the same. `prepareReplay(events)` sanitises the events in place (replay-sanitizer.ts), then answers
// the style rules of replay-fixes.ts and how many values the sanitiser removed or rewrote.
import { replayFixes } from './replay-fixes';
import { sanitizeReplay } from './replay-sanitizer';

export function prepareReplay(events: unknown[]): { insertStyleRules: string[]; sanitized: number } {
  const sanitized = sanitizeReplay(events);
  return { insertStyleRules: replayFixes(events), sanitized };
}
