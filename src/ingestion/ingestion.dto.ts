// The ingestion API's contract. Event batches and metadata bodies are read by their own parsers
// (event-batch.parser.ts, IngestionService.normalizeMetadata: NDJSON, content codings, messages naming
// the event); these schemas document what they take, and the answers.
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { uuidParam } from '../common/validation';
import { MAX_META_KEY_LENGTH } from '../domain/batch-summary';
import { EventSchema, recordingId } from '../domain/recording.dto';
import { IDEMPOTENCY_KEY } from './ingestion.service';

/** ?recordingId= of the collection paths, read by recordingIdFrom (its own message when missing). */
export const IngestionQuerySchema = z.object({ recordingId: uuidParam.describe('The recording, once (given twice: 400)') });

export const IdempotencyKeySchema = z.string().regex(IDEMPOTENCY_KEY);

/** A union has no class to extend: the DTO is named for the document by hand. */
export const EventBatch = createZodDto(z.xor([z.array(EventSchema), z.object({ events: z.array(EventSchema) })]));
Object.defineProperty(EventBatch, 'name', { value: 'EventBatch' });

const duplicate = z.boolean().describe('True when this batch (same Idempotency-Key or identical body) was already stored');

export class IngestResult extends createZodDto(
  z.object({
    recordingId: recordingId(),
    batchId: z.string().describe('Identifies the stored batch').meta({ example: '3f2a…' }),
    events: z.int().min(1).describe('Events in the batch').meta({ example: 50 }),
    duplicate,
  }),
) {}

/** Numbers and booleans are stored as their string form. */
export class MetadataBody extends createZodDto(
  z.record(z.string().min(1).max(MAX_META_KEY_LENGTH), z.xor([z.string(), z.number(), z.boolean()])).meta({ example: { userId: 'user-123', plan: 'pro' } }),
) {}

export class MetadataResult extends createZodDto(
  z.object({ recordingId: recordingId(), keys: z.int().min(1).describe('Keys written').meta({ example: 2 }), duplicate }),
) {}
