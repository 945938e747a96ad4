// Run in the browser by the hosted player in live mode: how far behind the recorded page the viewer
// is. Recorded timestamps are the recorded browser's clock, this page has its own: the feed's status
// messages carry the server's clock (serverTime), and `ClockOffset` keeps the largest of the recent
// estimates serverTime - local receipt time (each is low by that message's transit time, never high).
// The recorded browser's clock is taken to be the server's: its skew is not knowable from here.

const SAMPLES = 5;

export class ClockOffset {
  private samples: number[] = [];

  /** A status message's serverTime, received at local epoch ms `localNow`. */
  add(serverTime: number, localNow: number): void {
    if (!Number.isFinite(serverTime)) return;
    this.samples.push(serverTime - localNow);
    if (this.samples.length > SAMPLES) this.samples.shift();
  }

  /** Server clock minus local clock, ms (0 until a status message came). */
  get ms(): number {
    return this.samples.length ? Math.max(...this.samples) : 0;
  }

  /** The server's clock now, estimated. */
  serverNow(localNow: number): number {
    return localNow + this.ms;
  }
}

/** How far behind, as the live bar says it: "0.4 s behind", "2 s behind", "1 min 5 s behind", "1 h 2 min behind". */
export function behindText(ms: number): string {
  const tenths = Math.round(Math.max(0, ms) / 100);
  if (tenths === 0) return 'under 0.1 s behind';
  if (tenths < 100) return `${tenths % 10 ? (tenths / 10).toFixed(1) : tenths / 10} s behind`;
  const s = Math.round(Math.max(0, ms) / 1000);
  if (s < 60) return `${s} s behind`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s behind`;
  return `${Math.floor(s / 3600)} h ${Math.floor(s / 60) % 60} min behind`;
}
