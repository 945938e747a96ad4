// Shared by the screenshot page and the hosted player (plain ES5 text, run in the browser). The
// service stores any event with an integer type and timestamp and an object data, so a recording
// can hold an incremental event rrweb's replayer throws on (a mouse move without positions, a
// mutation without its lists). Thrown inside a seek, it failed the screenshot; thrown while playing,
// it stopped rrweb's timer loop and the player froze. Such an event is skipped and counted
// (replayer.skippedEvents); the rest of the recording plays. applyIncremental is the prototype
// method every incremental event goes through, in seeks and in playback alike.
export const SKIP_BAD_EVENTS = String.raw`function skipBadEvents(replayer) {
  var apply = replayer.applyIncremental;
  replayer.skippedEvents = 0;
  replayer.applyIncremental = function (event, isSync) {
    try {
      return apply.call(this, event, isSync);
    } catch (e) {
      replayer.skippedEvents++;
    }
  };
}`;
