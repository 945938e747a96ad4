// rrweb's record(), as the session runs it: privacy defaults the page's options may override, our own
// emit (a packFn would turn events into strings the server cannot read), and the `recording-meta`
// custom events. A failure of rrweb or of the page's callback is logged, never thrown into the page.
import { record } from '@rrweb/record';
import type { eventWithTime, recordOptions } from 'rrweb';

declare const __TAPEDECK_VERSION__: string;
declare const __RRWEB_VERSION__: string;

export type RecordOptions = Omit<recordOptions<eventWithTime>, 'emit' | 'packFn'> & {
  emit?: (event: eventWithTime, isCheckout?: boolean) => void;
};

export const RECORDER_VERSION = typeof __TAPEDECK_VERSION__ === 'string' ? __TAPEDECK_VERSION__ : 'dev';
const RRWEB_VERSION = typeof __RRWEB_VERSION__ === 'string' ? __RRWEB_VERSION__ : 'unknown';

/**
 * A new keyframe (Meta and FullSnapshot) this often, so a screenshot or a windowed read of any
 * moment starts at most this far back (docs/recorder.md, "Keyframes": chosen from measurements of
 * the bytes each checkout adds against the events a seek must read). `recordOptions.checkoutEveryNms`
 * sets another interval; 0 turns checkouts off.
 */
export const DEFAULT_CHECKOUT_MS = 5 * 60_000;

/** A `recording-meta` custom event carrying `payload`. */
export function metaEvent(payload: Record<string, unknown>): Record<string, unknown> {
  return { type: 5, timestamp: Date.now(), data: { tag: 'recording-meta', payload } };
}

/** The first event of a page: the caller's metadata and what this page and recorder are. */
export function firstMetaEvent(meta: Record<string, unknown>): Record<string, unknown> {
  return metaEvent({
    ...meta,
    domain: location.hostname,
    recorder: 'tapedeck',
    recorderVersion: RECORDER_VERSION,
    recordVersion: RRWEB_VERSION,
  });
}

/** Starts rrweb; every event goes to `push`, then to the page's own emit. Returns rrweb's stop. */
export function startRrweb(recordOptions: RecordOptions, push: (event: Record<string, unknown>) => void): (() => void) | undefined {
  const { emit: userEmit, packFn: _packFn, ...options } = recordOptions as RecordOptions & { packFn?: unknown };
  try {
    return record({
      maskAllInputs: true,
      slimDOMOptions: 'all',
      inlineStylesheet: true,
      checkoutEveryNms: DEFAULT_CHECKOUT_MS,
      ...options,
      emit: (event: eventWithTime, isCheckout?: boolean) => {
        push(event as unknown as Record<string, unknown>);
        if (userEmit) {
          try {
            userEmit(event, isCheckout);
          } catch {
            // the page's callback must not break recording
          }
        }
      },
    });
  } catch (err) {
    console.error('[tapedeck] could not start rrweb recording', err);
    return undefined;
  }
}

export function takeFullSnapshot(): void {
  try {
    record.takeFullSnapshot(true);
  } catch (err) {
    console.error('[tapedeck] could not take a full snapshot', err);
  }
}
