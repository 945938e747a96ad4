// Rebuild progress on stderr: percent of the sequence range, messages/s and ETA. On a terminal the
// line is redrawn in place (at most 5 times a second); otherwise a line is printed every 2 seconds.

export interface RebuildProgress {
  phase: string;
  /** Messages read so far in this phase. */
  read: number;
  /** Last sequence read. */
  seq: number;
  fromSeq: number;
  toSeq: number;
  elapsedMs: number;
}

const clock = (s: number) => {
  if (!Number.isFinite(s)) return '--:--';
  const t = Math.max(0, Math.round(s));
  const h = Math.floor(t / 3600);
  const mm = String(Math.floor((t % 3600) / 60)).padStart(2, '0');
  const ss = String(t % 60).padStart(2, '0');
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
};

export function formatProgress(p: RebuildProgress, width = 24): string {
  const span = Math.max(1, p.toSeq - p.fromSeq + 1);
  const frac = Math.min(1, Math.max(0, (p.seq - p.fromSeq + 1) / span));
  const secs = p.elapsedMs / 1000;
  const rate = secs > 0 ? p.read / secs : 0;
  const eta = frac >= 1 ? 0 : frac > 0 ? (secs * (1 - frac)) / frac : Number.POSITIVE_INFINITY;
  const filled = Math.round(frac * width);
  const bar = '#'.repeat(filled) + '-'.repeat(width - filled);
  return `${p.phase} [${bar}] ${(frac * 100).toFixed(1)}% seq ${p.seq}/${p.toSeq} ${p.read} msgs ${Math.round(rate)} msg/s ETA ${clock(eta)}`;
}

export class ProgressPrinter {
  private lastAt = 0;
  private last = '';
  private drawn = false;

  constructor(private readonly out: NodeJS.WriteStream = process.stderr) {}

  update(p: RebuildProgress, force = false): void {
    const now = Date.now();
    const tty = !!this.out.isTTY;
    if (!force && now - this.lastAt < (tty ? 200 : 2000)) return;
    const line = formatProgress(p);
    if (!tty && line === this.last) return;
    this.lastAt = now;
    this.last = line;
    if (tty) {
      this.out.write(`\r\x1b[2K${line}`);
      this.drawn = true;
    } else this.out.write(line + '\n');
  }

  /** Ends the in-place line. */
  done(): void {
    if (this.drawn) this.out.write('\n');
    this.drawn = false;
  }
}
