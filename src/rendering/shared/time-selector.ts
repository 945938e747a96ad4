// Playback position selectors shared by the screenshot and player endpoints:
// `offset:<ms>` (negative counts back from the end), `percent:<0..100>`, `epoch:<ms>`.
import { AppError } from '../../common/app-error';

export type TimeSelector = { kind: 'offset'; value: number } | { kind: 'percent'; value: number } | { kind: 'epoch'; value: number };

const INTEGER = /^-?\d{1,16}$/;
const DECIMAL = /^\d{1,3}(\.\d{1,6})?$/;

export function parseTimeSelector(raw: string | undefined): TimeSelector {
  // Absent means the start; present but empty is malformed, like every other empty parameter.
  if (raw === undefined) return { kind: 'offset', value: 0 };
  const colon = raw.indexOf(':');
  const kind = colon < 0 ? raw : raw.slice(0, colon);
  const value = colon < 0 ? '' : raw.slice(colon + 1);
  switch (kind) {
    case 'offset':
      if (INTEGER.test(value) && Number.isSafeInteger(Number(value))) return { kind, value: Number(value) || 0 };
      throw badTime('offset:<milliseconds> needs an integer number of milliseconds, e.g. offset:1500 or offset:-2000');
    case 'epoch':
      if (/^\d{1,16}$/.test(value) && Number.isSafeInteger(Number(value))) return { kind, value: Number(value) };
      throw badTime('epoch:<milliseconds> needs a non-negative integer epoch in milliseconds');
    case 'percent': {
      const n = Number(value);
      if (DECIMAL.test(value) && n >= 0 && n <= 100) return { kind, value: n };
      throw badTime('percent:<number> needs a number from 0 to 100, e.g. percent:50 or percent:12.5');
    }
    default:
      throw badTime('expected offset:<milliseconds>, percent:<0-100> or epoch:<milliseconds>');
  }
}

/** The absolute epoch-ms position the selector names within [firstTs, lastTs]; outside it: 422. */
export function resolvePosition(selector: TimeSelector, firstTs: number, lastTs: number): number {
  const duration = lastTs - firstTs;
  let at: number;
  switch (selector.kind) {
    case 'offset':
      at = selector.value < 0 ? lastTs + selector.value : firstTs + selector.value;
      break;
    case 'percent':
      at = firstTs + Math.round((duration * selector.value) / 100);
      break;
    case 'epoch':
      at = selector.value;
      break;
  }
  if (at < firstTs || at > lastTs) {
    throw new AppError('unprocessable', `Position ${describe(selector)} is outside the recording (${duration} ms long, epoch ${firstTs} to ${lastTs})`);
  }
  return at;
}

function describe(s: TimeSelector): string {
  return `${s.kind}:${s.value}`;
}

function badTime(detail: string): AppError {
  return new AppError('bad_request', `Invalid time: ${detail}`);
}
