// When the machine's CPU is contended while several tenants work, the tenants pressing against their
// own limits are slowed below them, so that the tenants working within theirs keep their latency.
// A tenant at its limits is, by definition, the one asking for more than it is given: its paced
// requests wait already, and waiting a little longer costs it throughput, not latency. A tenant
// within its limits is never slowed, nor is a tenant alone on the instance (there is no one to
// protect). The limits are what a tenant may use when the machine has room; this takes back what
// it has not. A guard of this process's machine, so not shared (docs/limits.md, Contention).
//
// The signal is the kernel's CPU pressure (PSI, /proc/pressure/cpu): the share of wall time in which
// some runnable task waited for a core. It rises as soon as the cores are saturated, before the
// load average or an event loop's delay would, and counts every process on the machine (NATS,
// ClickHouse, Chromium), not only this one. Each tick (a tenth of a second) the pressure, smoothed,
// is compared with a threshold: above it, each bound tenant's share of its limits is halved (down to
// MIN_FACTOR: within half a second of a flood's start, which is when the others' latency suffers);
// below half of it, every slowed tenant gets 4 % of its limits back (all of it within about two
// seconds); between the two, nothing changes (additive increase, multiplicative decrease, as TCP's
// congestion control: a backlog clears fast, and room is given back slowly enough not to overshoot).

/**
 * A tenant's recent use: when it last asked for anything, and of its requests that its rates
 * decided on, the share that waited or was refused (a moving average) and when the last one was.
 */
interface Seen {
  active: number;
  held: number;
  decided: number;
}

/** How often the pressure is read and the factors move (ms). */
export const TICK_MS = 100;
/** A tenant counts as working this long after its last request (ms). */
const ACTIVE_MS = 2000;
/**
 * A tenant presses against its limits while most of its requests wait for its rates or are refused
 * (a request now and then waits when a few arrive at once), until this long after the last one (ms).
 */
const BOUND_MS = 1000;
const BOUND_SHARE = 0.5;
/** Weight of a request in its tenant's moving share of held requests. */
const HELD_WEIGHT = 1 / 8;
/** The least share of its limits a slowed tenant keeps. */
export const MIN_FACTOR = 0.1;
const DECREASE = 0.5;
const INCREASE = 0.04;
/** Weight of the newest tick's pressure in the smoothed value. */
const SMOOTHING = 0.5;

export class Contention {
  private readonly seen = new Map<string, Seen>();
  private readonly factors = new Map<string, number>();
  private smoothed = 0;

  /** `threshold`: the CPU pressure (0–1) above which bound tenants are slowed. */
  constructor(private readonly threshold: number) {}

  /** The share (MIN_FACTOR–1) of its rates the tenant is given now. */
  factor(tenantId: string): number {
    return this.factors.get(tenantId) ?? 1;
  }

  /** How many tenants are slowed now. */
  get slowed(): number {
    return this.factors.size;
  }

  /** The smoothed CPU pressure of the last tick. */
  get pressure(): number {
    return this.smoothed;
  }

  /**
   * A request of the tenant. `held`: whether one of the tenant's rates made it wait or refused it;
   * undefined when no rate decided on it (it only shows that the tenant works).
   */
  note(tenantId: string, held?: boolean, now = Date.now()): void {
    let s = this.seen.get(tenantId);
    if (!s) this.seen.set(tenantId, (s = { active: now, held: 0, decided: -Infinity }));
    s.active = now;
    if (held === undefined) return;
    s.held += HELD_WEIGHT * (Number(held) - s.held);
    s.decided = now;
  }

  /** One tick: `pressure` is the share of the last tick's wall time in which tasks waited for a core. */
  tick(pressure: number, now = Date.now()): void {
    this.smoothed += SMOOTHING * (pressure - this.smoothed);
    const bound: string[] = [];
    let within = 0;
    for (const [id, s] of this.seen) {
      if (now - s.active > ACTIVE_MS) {
        if (!this.factors.has(id)) this.seen.delete(id);
      } else if (now - s.decided <= BOUND_MS && s.held > BOUND_SHARE) bound.push(id);
      else within++;
    }
    if (within > 0 && this.smoothed > this.threshold) {
      for (const id of bound) this.factors.set(id, Math.max(MIN_FACTOR, this.factor(id) * DECREASE));
    } else if (within === 0 || this.smoothed < this.threshold / 2) {
      for (const [id, f] of this.factors) {
        if (f + INCREASE >= 1) this.factors.delete(id);
        else this.factors.set(id, f + INCREASE);
      }
    }
  }
}

/** Reads the machine's CPU pressure: the share of wall time since the last read in which some task waited for a core. */
export class CpuPressure {
  private last?: { stalledUs: number; at: bigint };

  constructor(private readonly read: () => string) {}

  /** The share since the last call (0 on the first), or undefined when the pressure cannot be read. */
  sample(at = process.hrtime.bigint()): number | undefined {
    const m = /^some .*total=(\d+)/m.exec(this.read());
    if (!m) return undefined;
    const stalledUs = Number(m[1]);
    const was = this.last;
    this.last = { stalledUs, at };
    if (!was) return 0;
    const wallUs = Number(at - was.at) / 1000;
    return wallUs > 0 ? Math.min(1, Math.max(0, (stalledUs - was.stalledUs) / wallUs)) : 0;
  }
}
