// The contract of GET /recordings/{id}/activity: a recording's timeline of page views, clicks, rage
// clicks, errors and failed network requests (docs/activity.md), each with its offset from the
// recording's first event, so a console or a customer's UI can seek the player to it.
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { epochMs } from '../common/openapi/openapi-schema';
import { recordingId } from '../domain/recording.dto';

const at = {
  timestamp: epochMs('Event time, epoch ms'),
  offset: z.int().describe("Milliseconds since the recording's first event (where to seek a player)").meta({ example: 4200 }),
};
const count = (what: string) => z.int().min(0).describe(what);

const PageViewItem = z.object({
  kind: z.literal('pageView'),
  ...at,
  url: z.string().describe("The rrweb Meta event's href").meta({ example: 'https://shop.example/checkout?step=2' }),
  path: z.string().meta({ example: '/checkout' }),
  title: z.string().describe("The document title in the page's full snapshot ('' when none)"),
  duration: z.int().min(0).describe("Until the next page view, or the recording's last event, ms"),
});
const ClickItem = z.object({
  kind: z.literal('click'),
  ...at,
  x: z.int(),
  y: z.int(),
  nodeId: z.int().describe("rrweb's id of the clicked node"),
  text: z
    .string()
    .describe("The clicked element's text, aria-label or title ('' when the target is not inside a clickable element)")
    .meta({ example: 'Pay now' }),
  selector: z.string().describe('tag#id.class1.class2 of that element').meta({ example: 'button#pay.btn.primary' }),
  rage: z.boolean().describe('Part of a rage click'),
  dead: z.boolean().describe('Nothing changed within 1 s after it'),
});
const RageClickItem = z.object({
  kind: z.literal('rageClick'),
  ...at,
  clicks: z.int().min(3),
  nodeId: z.int(),
  text: z.string(),
  selector: z.string(),
});
const ErrorItem = z.object({
  kind: z.literal('error'),
  ...at,
  message: z.string().describe('The console.error arguments, or the uncaught error as the browser words it').meta({ example: 'Uncaught Error: boom' }),
});
const NetworkFailureItem = z.object({
  kind: z.literal('networkFailure'),
  ...at,
  url: z.string(),
  method: z.string().meta({ example: 'POST' }),
  status: z.int().describe('HTTP status; 0 when the request got no response'),
  duration: z.int().min(0).describe('ms'),
});

export const ActivityItemSchema = z
  .discriminatedUnion('kind', [PageViewItem, ClickItem, RageClickItem, ErrorItem, NetworkFailureItem])
  .meta({ id: 'ActivityItem' });
export type ActivityItemView = z.output<typeof ActivityItemSchema>;

export class RecordingActivityView extends createZodDto(
  z.object({
    recordingId: recordingId(),
    projected: z.boolean().describe('False until the projections hold an event batch of the recording: everything else is then empty'),
    startedAt: epochMs('First event time, epoch ms').nullable(),
    endedAt: epochMs('Last event time, epoch ms').nullable(),
    summary: z.object({
      pageViews: count('Page views'),
      clicks: count('Clicks'),
      rageClicks: count('Rage clicks (3 or more clicks on one node within 1 s; one per run of clicks on the node less than 1 s apart)'),
      deadClicks: count('Clicks followed by no DOM change, input, scroll or navigation within 1 s'),
      errors: count('Console errors and uncaught errors'),
      networkFailures: count('Requests answered with status >= 400 or not at all'),
      inputs: count('Input events (rrweb IncrementalSource.Input)'),
      activeTime: count('ms: 1 s for every second with a user interaction in it or in the 4 s before (up to the last event), at most the duration'),
      idleTime: count('ms: duration minus activeTime'),
    }),
    errorMessages: z.array(z.object({ message: z.string(), count: z.int().min(1) })).describe('Distinct error messages, most frequent first'),
    items: z.array(ActivityItemSchema).describe('In time order (ties: page views, clicks, rage clicks, errors, network failures)'),
  }),
) {}
