// Run in the browser by the screenshot page and the hosted player. The service stores any event with
// an integer type and timestamp and an object data, so a recording can hold an incremental event
// rrweb's replayer throws on (a mouse move without positions, a mutation without its lists). Thrown
// inside a seek, it failed the screenshot; thrown while playing, it stopped rrweb's timer loop and
// the player froze. Such an event is skipped and counted (replayer.skippedEvents); the rest of the
// recording plays. applyIncremental is the prototype method every incremental event goes through, in
// seeks and in playback alike.
import type { ReplayerInternals } from './rrweb-shapes';

export function skipBadEvents(replayer: ReplayerInternals): void {
  const apply = replayer.applyIncremental;
  replayer.skippedEvents = 0;
  replayer.applyIncremental = function (this: ReplayerInternals, event: unknown, isSync: boolean): unknown {
    try {
      return apply.call(this, event, isSync);
    } catch {
      replayer.skippedEvents = (replayer.skippedEvents as number) + 1;
      return undefined;
    }
  };
}
