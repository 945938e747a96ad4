// Screenshot query validation (400 on bad input) and the spec's size derivation from the
// recording's viewport ratio.
import { z } from 'zod';
import { parseWith, queryInt } from '../../common/validation';
import { parseTimeSelector, TimeSelector } from '../shared/time-selector';

export const MAX_SCREENSHOT_SIDE = 4096;
const DEFAULT_WIDTH = 1280;
const DEFAULT_HEIGHT = 720;

const schema = z.object({
  time: z.string().max(64).optional(),
  width: queryInt(1, MAX_SCREENSHOT_SIDE),
  height: queryInt(1, MAX_SCREENSHOT_SIDE),
  quality: queryInt(1, 100, 80),
});

export interface ScreenshotQuery {
  time: TimeSelector;
  width?: number;
  height?: number;
  /** 1..100; used for JPEG and WebP, ignored for PNG. */
  quality: number;
}

export interface Viewport {
  width: number;
  height: number;
}

export function parseScreenshotQuery(query: unknown): ScreenshotQuery {
  const q = parseWith(schema, query ?? {}, 'screenshot query');
  return { time: parseTimeSelector(q.time), width: q.width, height: q.height, quality: q.quality ?? 80 };
}

/** Width and height of the output image; `viewport` is the recording's, when its Meta event is known. */
export function resolveScreenshotSize(requested: { width?: number; height?: number }, viewport?: Viewport): Viewport {
  const ratio = viewport && viewport.width > 0 && viewport.height > 0 ? viewport.width / viewport.height : undefined;
  const { width, height } = requested;
  if (width !== undefined && height !== undefined) return { width, height };
  if (width === undefined && height !== undefined) {
    return { width: ratio ? clamp(height * ratio) : DEFAULT_WIDTH, height };
  }
  const w = width ?? DEFAULT_WIDTH;
  return { width: w, height: ratio ? clamp(w / ratio) : DEFAULT_HEIGHT };
}

function clamp(n: number): number {
  return Math.min(MAX_SCREENSHOT_SIDE, Math.max(1, Math.round(n)));
}
