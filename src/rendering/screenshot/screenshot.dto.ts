// The screenshot routes' contract: their query and the image they answer. The query is parsed by
// screenshot-params.ts (as "screenshot query", so a failure reads "Invalid screenshot query: …") and
// documented in /openapi.json from the same schema.
import { z } from 'zod';
import { queryInt } from '../../common/validation';

export const MAX_SCREENSHOT_SIDE = 4096;

const RATIO = "the recording's viewport ratio at that time (its last Meta event or window resize)";

export const ScreenshotQuerySchema = z.object({
  time: z
    .string()
    .max(64)
    .optional()
    .describe(
      'Playback position: offset:<ms> from the first event (negative: back from the last event), percent:<0-100> of the duration, or epoch:<ms>. Default (when absent) offset:0. ' +
        "Or poster: the page as its visitor saw it, for thumbnails and previews: the end of the first burst of DOM changes after the first full snapshot (the last change followed by 1 s without one), at most 5 s after it, before the visitor's first click or keystroke once the page has changed, and within the first page view (offset:0 often shows a page before its scripts built it). " +
        'Malformed, empty included: 400; outside the recording: 422.',
    )
    .meta({ example: 'offset:1500' }),
  width: queryInt(1, MAX_SCREENSHOT_SIDE)
    .describe(`Integer 1-${MAX_SCREENSHOT_SIDE} (else 400). Default 1280; when only height is given, height × ${RATIO}, else 1280.`)
    .meta({ example: 1280 }),
  height: queryInt(1, MAX_SCREENSHOT_SIDE)
    .describe(`Integer 1-${MAX_SCREENSHOT_SIDE} (else 400). When omitted: width ÷ ${RATIO} when the recording names one, else 720.`)
    .meta({ example: 720 }),
  quality: queryInt(1, 100, 80).describe('Integer 1-100, default 80 (else 400). JPEG and WebP only; ignored for PNG.'),
});

/** The image, in the format the route or Accept chose. */
export const ScreenshotImage = z.string().meta({ format: 'binary' });
