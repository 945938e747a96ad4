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
//
// A tenant also counts as pressing while it keeps many reads and renders in progress at once, several
// times as many as the lightest other working tenant: its clients then ask faster than the machine
// serves them, whatever its rates say (limits larger than the machine's capacity are never reached,
// so they never hold it). A slowed tenant may then start a read or render only while it has fewer in
// progress than its share of what it had when it was first slowed; the others wait their turn, up to
// a longest wait, and are refused after it. Unlike a rate, this holds a tenant whose limits the
// machine cannot reach, and it holds it from the first tick: it needs no history of held requests.
//
// Before the first ticks, nothing of this can act: the pressure is not seen yet. A tenant that starts
// working while others work is therefore new for its first second (NEW_MS, ten ticks): its reads and
// renders go one at a time, and each waits while a tenant already working within its limits has one
// of that kind in progress (TCP's slow start, with the incumbents served first). Its first request of
// each kind goes at once when no one else's is in progress; what it cannot do is start its whole
// burst at the moment the others' requests arrive, which was where their latency went (on two cores,
// the first quarter second of a flood at its limits filled both: bench/README.md, noisy neighbour).
// It never waits for a tenant that presses against its own limits, and after its first second the
// rules above apply alone; its requests waiting then go on at that tick.

/**
 * A tenant's recent use: when it last asked for anything, and of its requests that its rates
 * decided on, the share that waited or was refused (a moving average) and when the last one was.
 */
interface Seen {
  active: number;
  held: number;
  decided: number;
  /** Reads and renders in progress now, of each kind; their sum over time (request-ms) since `at`, and its mean over the last tick. */
  kinds: Record<WorkKind, number>;
  load: number;
  at: number;
  mean: number;
  /** Whether the last tick counted it as pressing against its limits (held by its rates or busy). */
  bound: boolean;
  /** Until when it is new (it started working while others worked): its reads and renders go one at a time, after the others'. */
  newUntil: number;
}

/** What a slowed tenant's share of work in progress is counted in: each kind apart, so that long reads do not starve renders. */
export type WorkKind = 'read' | 'render';

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
/**
 * A tenant keeping at least this many reads and renders in progress on average over a tick, and
 * BUSY_RATIO times as many as the lightest other working tenant, presses against the machine.
 */
export const BUSY_IN_PROGRESS = 4;
const BUSY_RATIO = 2;
/** At most this many of a slowed tenant's reads and renders wait for its turn; more are refused at once. */
const MAX_WAITING = 256;
/** How long a tenant that starts working while another works counts as new (ms): the guard's first ten ticks. */
export const NEW_MS = 1000;

export class Contention {
  private readonly seen = new Map<string, Seen>();
  private readonly factors = new Map<string, number>();
  /** A slowed tenant's reads and renders in progress when it was first slowed: its share of it is what it may keep. */
  private readonly slowedFrom = new Map<string, Record<WorkKind, number>>();
  private readonly waiting = new Map<string, (() => void)[]>();
  private smoothed = 0;
  private lastTick?: number;

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
    const s = this.seenOf(tenantId, now);
    s.active = now;
    if (held === undefined) return;
    s.held += HELD_WEIGHT * (Number(held) - s.held);
    s.decided = now;
  }

  /**
   * How many reads or renders the tenant may have in progress now: when slowed, its share of what it
   * had in progress when it was first slowed, at least one; when new while others work within their
   * limits, one, or none while one of them has one in progress; else Infinity.
   */
  inProgressCap(tenantId: string, kind: WorkKind, now = Date.now()): number {
    const f = this.factors.get(tenantId);
    if (f !== undefined) return Math.max(1, Math.ceil(f * (this.slowedFrom.get(tenantId)?.[kind] ?? 1)));
    if ((this.seen.get(tenantId)?.newUntil ?? 0) <= now) return Infinity;
    let within = false;
    for (const [id, o] of this.seen) {
      if (id === tenantId || !working(o, now) || this.pressing(id, o)) continue;
      if (o.kinds[kind] > 0) return 0;
      within = true;
    }
    return within ? 1 : Infinity;
  }

  /** Whether a tenant presses against its limits or the machine: counted so at the last tick, slowed, or with many in progress now. */
  private pressing(tenantId: string, s: Seen): boolean {
    return s.bound || this.factors.has(tenantId) || inProgress(s) >= BUSY_IN_PROGRESS;
  }

  /**
   * A read or render of the tenant about to start: at once while the tenant has fewer in progress
   * than its cap, else when one of them ends (or the cap rises), in order. Resolves the function
   * that ends it (call it once, when the read or render is over), or undefined when it waited
   * `maxWaitMs` or too many wait already (nothing counted then: refuse it).
   */
  begin(tenantId: string, kind: WorkKind, maxWaitMs: number, now = Date.now()): Promise<(() => void) | undefined> {
    const s = this.seenOf(tenantId, now);
    s.active = now;
    const key = waitKey(tenantId, kind);
    const queue = this.waiting.get(key);
    if (!queue && s.kinds[kind] < this.inProgressCap(tenantId, kind, now)) return Promise.resolve(this.started(tenantId, kind, s, now));
    if ((queue?.length ?? 0) >= MAX_WAITING) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const admit = () => {
        clearTimeout(timer);
        resolve(this.started(tenantId, kind, s, Date.now()));
      };
      const timer = setTimeout(() => {
        const q = this.waiting.get(key);
        const i = q?.indexOf(admit) ?? -1;
        if (i >= 0) q!.splice(i, 1);
        if (q?.length === 0) this.waiting.delete(key);
        resolve(undefined);
      }, maxWaitMs);
      timer.unref?.();
      if (queue) queue.push(admit);
      else this.waiting.set(key, [admit]);
    });
  }

  /** One tick: `pressure` is the share of the last tick's wall time in which tasks waited for a core. */
  tick(pressure: number, now = Date.now()): void {
    this.smoothed += SMOOTHING * (pressure - this.smoothed);
    const span = Math.max(1, now - (this.lastTick ?? now - TICK_MS));
    this.lastTick = now;
    const active: [string, Seen][] = [];
    for (const [id, s] of this.seen) {
      if (s.newUntil > 0 && s.newUntil <= now) {
        s.newUntil = 0;
        this.admitWaiting(id, 'read', now);
        this.admitWaiting(id, 'render', now);
      }
      this.account(s, now);
      s.mean = s.load / span;
      s.load = 0;
      if (working(s, now)) active.push([id, s]);
      else if (!this.factors.has(id)) this.seen.delete(id);
    }
    // The two lightest means: the lightest other tenant of each is the first, or the second for the first itself.
    const [first, second] = lightestTwo(active);
    const bound: [string, Seen][] = [];
    let within = 0;
    for (const [id, s] of active) {
      const held = now - s.decided <= BOUND_MS && s.held > BOUND_SHARE;
      const lightest = s === first ? (second?.mean ?? Infinity) : first!.mean;
      const busy = s.mean >= BUSY_IN_PROGRESS && s.mean >= BUSY_RATIO * lightest;
      s.bound = held || busy;
      if (s.bound) bound.push([id, s]);
      else within++;
    }
    if (within > 0 && this.smoothed > this.threshold) {
      for (const [id, s] of bound) {
        if (!this.factors.has(id)) this.slowedFrom.set(id, { ...s.kinds });
        this.factors.set(id, Math.max(MIN_FACTOR, this.factor(id) * DECREASE));
      }
    } else if (within === 0 || this.smoothed < this.threshold / 2) {
      for (const [id, f] of this.factors) {
        if (f + INCREASE < 1) this.factors.set(id, f + INCREASE);
        else {
          this.factors.delete(id);
          this.slowedFrom.delete(id);
        }
        this.admitWaiting(id, 'read');
        this.admitWaiting(id, 'render');
      }
    }
  }

  private seenOf(tenantId: string, now: number): Seen {
    let s = this.seen.get(tenantId);
    if (s) return s;
    const newUntil = [...this.seen.values()].some((o) => working(o, now)) ? now + NEW_MS : 0;
    s = { active: now, held: 0, decided: -Infinity, kinds: { read: 0, render: 0 }, load: 0, at: now, mean: 0, bound: false, newUntil };
    this.seen.set(tenantId, s);
    return s;
  }

  /** Adds the reads and renders in progress since the last change to the tenant's load. */
  private account(s: Seen, now: number) {
    s.load += inProgress(s) * Math.max(0, now - s.at);
    s.at = now;
  }

  private started(tenantId: string, kind: WorkKind, s: Seen, now: number): () => void {
    this.account(s, now);
    s.kinds[kind]++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.account(s, Date.now());
      s.kinds[kind]--;
      this.admitWaiting(tenantId, kind);
      // A new tenant's waiting ones may wait for this one to end (inProgressCap).
      for (const key of [...this.waiting.keys()]) if (key.startsWith(`${kind} `)) this.admitWaiting(key.slice(kind.length + 1), kind);
    };
  }

  /** Starts the tenant's waiting reads and renders that its cap allows now. */
  private admitWaiting(tenantId: string, kind: WorkKind, now = Date.now()) {
    const key = waitKey(tenantId, kind);
    const queue = this.waiting.get(key);
    const s = this.seen.get(tenantId);
    if (!queue || !s) return;
    while (queue.length > 0 && s.kinds[kind] < this.inProgressCap(tenantId, kind, now)) queue.shift()!();
    if (queue.length === 0) this.waiting.delete(key);
  }
}

const inProgress = (s: Seen) => s.kinds.read + s.kinds.render;
/** Whether the tenant works: it asked for something within ACTIVE_MS, or has reads or renders in progress. */
const working = (s: Seen, now: number) => now - s.active <= ACTIVE_MS || inProgress(s) > 0;
const waitKey = (tenantId: string, kind: WorkKind) => `${kind} ${tenantId}`;

/** The two tenants with the fewest reads and renders in progress over the last tick. */
function lightestTwo(active: [string, Seen][]): [Seen | undefined, Seen | undefined] {
  let first: Seen | undefined;
  let second: Seen | undefined;
  for (const [, s] of active) {
    if (!first || s.mean < first.mean) [first, second] = [s, first];
    else if (!second || s.mean < second.mean) second = s;
  }
  return [first, second];
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
