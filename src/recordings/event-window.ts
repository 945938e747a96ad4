// A window query (event-window.dto.ts) as the event store takes it: its bounds resolved against the
// recording's first and last event times, which the store knows only once it has read the headers.
import { AppError } from '../common/app-error';
import { ValidationError } from '../common/validation';
import type { ReadWindow } from '../domain/event-store';
import type { TimeSelector } from '../rendering/shared/time-selector';
import type { EventWindowQuery } from './event-window.dto';

/** Epoch ms of a selector within a recording from `first` to `last` (maybe outside it). */
export function positionOf(s: TimeSelector, first: number, last: number): number {
  switch (s.kind) {
    case 'offset':
      return s.value < 0 ? last + s.value : first + s.value;
    case 'percent':
      return first + Math.round(((last - first) * s.value) / 100);
    case 'epoch':
      return s.value;
  }
}

const describe = (name: string, s: TimeSelector) => `${name}=${s.kind}:${s.value}`;

/** What a query's window was made of: plain data, so that a read thread makes the same window (read-thread.ts). */
export interface WindowSpec {
  query: Partial<EventWindowQuery>;
  what: 'recording' | 'replay';
}

/** A ReadWindow made by eventWindow (with its hint, when one was added: the spec is kept). */
export type QueryWindow = ReadWindow & { spec: WindowSpec };

/** The spec of a window made by eventWindow; undefined for any other. */
export const specOf = (w: ReadWindow): WindowSpec | undefined => (w as Partial<QueryWindow>).spec;

/**
 * The ReadWindow of a query; undefined for none (the whole recording, read as before). A window is
 * cut to the recording: one that misses it entirely is a 422, like a screenshot position outside it.
 */
export function eventWindow(q: Partial<EventWindowQuery>, what: 'recording' | 'replay' = 'recording'): QueryWindow | undefined {
  const { from, to, limit } = q;
  if (from === undefined && to === undefined && limit === undefined) return undefined;
  return {
    limit,
    spec: { query: { from, to, limit }, what },
    resolve(first, last) {
      const f = from && positionOf(from, first, last);
      const t = to && positionOf(to, first, last);
      const range = what === 'recording' ? `its events are from epoch ${first} to ${last}` : `its timeline is from ${first} to ${last} ms`;
      if (f !== undefined && t !== undefined && f > t) {
        const message = `${describe('from', from!)} (epoch ${f}) is after ${describe('to', to!)} (epoch ${t})`;
        throw new ValidationError(`Invalid query: from: ${message}`, [{ path: 'from', message }]);
      }
      if (f !== undefined && f > last) throw new AppError('unprocessable', `${describe('from', from!)} is after the ${what}'s last event (${range})`);
      if (t !== undefined && t < first) throw new AppError('unprocessable', `${describe('to', to!)} is before the ${what}'s first event (${range})`);
      return { from: f, to: t };
    },
  };
}
