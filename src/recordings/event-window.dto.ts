// The time window of event reads (GET /recordings/{id}/events and the replay event reads): from, to
// and limit as query strings, rrweb Cloud style. from and to take the forms of the screenshot and
// player `time` selector, or plain epoch milliseconds. Validated and documented by this one schema;
// bounds that depend on the recording are checked once it is read (event-window.ts).
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { queryInt } from '../common/validation';
import { parseTimeSelector, TimeSelector } from '../rendering/shared/time-selector';

/** Most events one windowed read may be asked for. */
export const MAX_EVENTS_LIMIT = 1_000_000;

const FORMS = 'offset:<ms> from the first event (negative: back from the last event), percent:<0-100> of the duration, epoch:<ms>, or epoch milliseconds alone';

const bound = (description: string, example: string) =>
  z
    .string()
    .transform((raw, ctx): TimeSelector => {
      if (/^\d{1,16}$/.test(raw)) return { kind: 'epoch', value: Number(raw) };
      try {
        return parseTimeSelector(raw);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message.replace(/^Invalid time: /, '') });
        return z.NEVER;
      }
    })
    .optional()
    .describe(description)
    .meta({ example });

export const EventWindowQuerySchema = z.object({
  from: bound(
    `Start of the window: ${FORMS}. The answer begins at the last keyframe (a FullSnapshot with the Meta before it) at or before this time, its Meta first, so it replays on its own; from the first event when there is none. After the recording's last event: 422.`,
    'offset:-60000',
  ),
  to: bound(`End of the window (events at this time included): same forms. Before the recording's first event: 422; before from: 400.`, 'offset:-1'),
  limit: queryInt(1, MAX_EVENTS_LIMIT).describe(`At most this many events (1-${MAX_EVENTS_LIMIT}, else 400), the first of the window; default all.`),
});

/** The window of an event read; without from, to and limit the read is the whole recording, as before. */
export class EventWindowQuery extends createZodDto(EventWindowQuerySchema) {}
