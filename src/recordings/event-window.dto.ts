// The time window of event reads (GET /recordings/{id}/events and the replay event reads): from, to
// and limit as query strings, rrweb Cloud style. from and to take the forms of the screenshot and
// player `time` selector, or plain epoch milliseconds. Validated and documented by this one schema;
// bounds that depend on the recording are checked once it is read (event-window.ts).
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { queryBoolean, queryInt } from '../common/validation';
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
    `Start of the window: ${FORMS}. The answer begins at the last keyframe (a FullSnapshot with the Meta before it) at or before this time, its Meta first, so it replays on its own; from the first event when there is none. A keyframe the server made (for recordings without checkouts) is a Meta and a FullSnapshot at its moment, then the recording's events after that moment. After the recording's last event: 422.`,
    'offset:-60000',
  ),
  to: bound(`End of the window (events at this time included): same forms. Before the recording's first event: 422; before from: 400.`, 'offset:-1'),
  limit: queryInt(1, MAX_EVENTS_LIMIT).describe(`At most this many events (1-${MAX_EVENTS_LIMIT}, else 400), the first of the window; default all.`),
});

/** The window of an event read; without from, to and limit the read is the whole recording, as before. */
export class EventWindowQuery extends createZodDto(EventWindowQuerySchema) {}

export const RecordingEventsQuerySchema = EventWindowQuerySchema.extend({
  live: queryBoolean(false).describe(
    'true: a live feed instead of one array (text/event-stream, Server-Sent Events; docs/live.md): the recording from its latest keyframe (or its first event), then every batch as soon as it is stored, until the recording is deleted, the link expires or the viewer goes away. Not with from, to or limit.',
  ),
  lastEventId: z
    .string()
    .regex(/^\d{1,15}$/, { message: 'must be the id of a live feed message (digits)' })
    .optional()
    .describe(
      'Live feeds only: resume after this message id (what EventSource sends as Last-Event-ID, which wins when both are given): only what was stored after it, no gap, no repeat.',
    ),
});

/** GET /recordings/{id}/events: a window, or the live feed. */
export class RecordingEventsQuery extends createZodDto(RecordingEventsQuerySchema) {}
