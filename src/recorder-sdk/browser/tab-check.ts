// Tells a tab from its copies. Chromium copies sessionStorage (recording id and sequence counter
// included) into a tab opened with window.open() and into a duplicated tab. A starting page asks on a
// BroadcastChannel whether a live page of another tab holds its stored id; pages of one tab share
// sessionStorage and a copy does not, so a probe the asker writes there tells the two apart.
import { uuid } from './ids';
import type { KeyValueStore } from './storage';

const CHANNEL = 'tapedeck-recorder';
export const PROBE_KEY = 'tapedeck-tab-probe';

interface Message {
  t: 'ask' | 'taken';
  id: string;
  probe: string;
}

export class TabCheck {
  private channel: BroadcastChannel | null = null;
  /** Questions of this page awaiting an answer, by probe. */
  private readonly asking = new Map<string, () => void>();

  /** `ownIds` are the recording ids this page answers for (its session's, its tab's). */
  constructor(
    private readonly store: KeyValueStore,
    private readonly ownIds: () => ReadonlyArray<string | null | undefined>,
  ) {}

  /** Listens for questions (while the page is shown: a page in the back/forward cache is silent). */
  open(): boolean {
    if (this.channel) return true;
    if (typeof BroadcastChannel !== 'function') return false;
    try {
      this.channel = new BroadcastChannel(CHANNEL);
    } catch {
      return false;
    }
    this.channel.onmessage = (ev: MessageEvent) => this.onMessage(ev.data);
    return true;
  }

  close(): void {
    this.channel?.close();
    this.channel = null;
  }

  /**
   * Asks whether a page of another tab holds `id`. Calls `done(true)` on the first answer, else
   * `done(false)` after `timeoutMs` or when the returned function is called (decide now). Never calls
   * `done` synchronously; returns null (and never calls it) where there is no BroadcastChannel.
   */
  ask(id: string, timeoutMs: number, done: (takenElsewhere: boolean) => void): (() => void) | null {
    if (!this.open() || !this.channel) return null;
    const probe = uuid();
    // Fires after timeoutMs, by when `finish` is defined.
    const timer = setTimeout(() => finish(false), timeoutMs);
    let settled = false;
    const finish = (taken: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      this.asking.delete(probe);
      if (this.store.getItem(PROBE_KEY) === probe) this.store.removeItem(PROBE_KEY);
      done(taken);
    };
    this.store.setItem(PROBE_KEY, probe);
    this.asking.set(probe, () => finish(true));
    this.channel.postMessage({ t: 'ask', id, probe } satisfies Message);
    return () => finish(false);
  }

  private onMessage(data: unknown): void {
    const m = data as Partial<Message> | null;
    if (!m || typeof m.id !== 'string' || typeof m.probe !== 'string') return;
    if (m.t === 'taken') {
      this.asking.get(m.probe)?.();
    } else if (m.t === 'ask' && this.ownIds().includes(m.id) && this.store.getItem(PROBE_KEY) !== m.probe) {
      // The asker's probe is not in our sessionStorage: it is another tab.
      this.channel?.postMessage({ t: 'taken', id: m.id, probe: m.probe } satisfies Message);
    }
  }
}
