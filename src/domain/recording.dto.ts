// Contract pieces every recording route shares: the recording id in a path, and the rrweb event as
// ingestion takes it and the reads answer it.
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { epochMs } from '../common/openapi/openapi-schema';
import { uuidParam } from '../common/validation';

export const RECORDING_ID_EXAMPLE = '550e8400-e29b-41d4-a716-446655440000';

/** A recording's id as answers carry it (lowercase). */
export const recordingId = () => z.string().check(z.guid()).meta({ example: RECORDING_ID_EXAMPLE });

export class RecordingIdParams extends createZodDto(z.object({ recordingId: uuidParam })) {}

/** What ingestion checks of an event (ingestion/event-batch.parser.ts); every other field is kept as sent. Nested in answers and bodies as components.schemas.Event. */
export const EventSchema = z
  .object({
    type: z.int().min(0).describe('rrweb EventType: 0 DomContentLoaded, 1 Load, 2 FullSnapshot, 3 IncrementalSnapshot, 4 Meta, 5 Custom, 6 Plugin'),
    timestamp: epochMs('Epoch milliseconds'),
    data: z.record(z.string(), z.unknown()),
    sequenceId: z.int().min(0).optional().describe('Optional per-recording client sequence; repeated values at the same timestamp are dropped on read'),
    originalTimestamp: epochMs('On reads: the original absolute epoch ms (equal to timestamp for a single recording; replays renumber timestamp)').optional(),
    recordingId: z.string().check(z.guid()).optional().describe('On replay reads: the recording the event came from'),
  })
  .loose()
  .meta({ id: 'Event' });

/** The events a read answers (streamed). */
export class EventList extends createZodDto(z.array(EventSchema)) {}
