// The screenshot query as the renderer takes it (validated by its schema, screenshot.dto.ts; the
// position read as a time selector), and the spec's size derivation from the recording's viewport ratio.
import { z } from 'zod';
import { parseWith } from '../../common/validation';
import { parseTimeSelector, TimeSelector } from '../shared/time-selector';
import { MAX_SCREENSHOT_SIDE, ScreenshotQuerySchema } from './screenshot.dto';

const DEFAULT_WIDTH = 1280;
const DEFAULT_HEIGHT = 720;

/** A position, or the page as its visitor saw it (poster-moment.ts): the moment of thumbnails and previews. */
export type ScreenshotTime = TimeSelector | { kind: 'poster' };
export const POSTER: ScreenshotTime = { kind: 'poster' };

/** quality (1..100) is used for JPEG and WebP, ignored for PNG. */
export type ScreenshotQuery = Omit<z.output<typeof ScreenshotQuerySchema>, 'time'> & { time: ScreenshotTime };

export interface Viewport {
  width: number;
  height: number;
}

export function parseScreenshotQuery(query: unknown): ScreenshotQuery {
  const q = parseWith(ScreenshotQuerySchema, query ?? {}, 'screenshot query');
  return { time: q.time === 'poster' ? POSTER : parseTimeSelector(q.time), width: q.width, height: q.height, quality: q.quality };
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
