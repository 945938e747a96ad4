import { applyDecorators, Controller, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiHeader, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Auth, CurrentAuth } from '../auth/auth.decorator';
import type { AuthContext } from '../auth/auth-context';
import { bodyBuffer, jsonBody, utf8 } from '../common/request-body';
import { parseWith, uuidParam } from '../common/validation';
import { formatOf, parseEventBatch } from './event-batch.parser';
import { IngestionService } from './ingestion.service';
import { clientInfo, firstHeader } from './client-info';
import { recordingIdFrom } from './recording-id';
import { ApiJsonBodyLimits } from '../recordings/recordings-query.openapi';

/** Largest metadata body, decoded. */
const METADATA_MAX_BYTES = 1024 * 1024;

const eventArray = { type: 'array' as const, items: { $ref: '#/components/schemas/Event' } };
const recordingIdProperty = { type: 'string' as const, format: 'uuid', example: '550e8400-e29b-41d4-a716-446655440000' };
const duplicate = { type: 'boolean' as const, description: 'True when this batch (same Idempotency-Key or identical body) was already stored' };

const header = (req: FastifyRequest, name: string) => firstHeader(req.headers[name]);

/** The one ingestion operation's documentation and auth, shared by its path and its query form. */
const IngestEndpoint = (summary: string, more: string) =>
  applyDecorators(
    HttpCode(200),
    Auth({ keys: ['public', 'secret'], queryToken: true }),
    ApiOperation({
      summary,
      description:
        'Appends a batch of rrweb events to the recording (created on first write). Body: a JSON array of events, {"events":[...]}, or NDJSON (one event per line), optionally compressed (Content-Encoding gzip, deflate or br; zstd on Node.js 22.15 or later). ' +
        'Answers 200 only after JetStream stored the batch. A retry with the same Idempotency-Key, or with an identical body, is stored once (duplicate: true). ' +
        'The key may be given as ?token= for sendBeacon-style clients. ' +
        "In-band metadata: type 5 events tagged recording-meta or pageview-meta; a recording-meta payload with includePii true also stores the client's ipAddress (as the proxies trusted by TRUST_PROXY report it in X-Forwarded-For, else the peer) and userAgent. " +
        more,
    }),
    // text/plain is read as JSON: what navigator.sendBeacon sends for a string body.
    ApiConsumes('application/json', 'text/plain', 'application/x-ndjson', 'application/ndjson'),
    ApiHeader({ name: 'Idempotency-Key', required: false, description: '1-128 characters [A-Za-z0-9_.:-]; same key = same batch (other events under a used key: 422)' }),
    ApiHeader({ name: 'Content-Encoding', required: false, description: 'identity (default), gzip (x-gzip), deflate, br; zstd where the runtime has it (Node.js 22.15 or later)' }),
    ApiBody({
      description: 'JSON (application/json or text/plain): an array of events or {"events":[…]}; NDJSON: one event per line',
      schema: { oneOf: [eventArray, { type: 'object', required: ['events'], properties: { events: eventArray } }] },
    }),
    ApiResponse({
      status: 200,
      description: 'Stored (or already stored: duplicate true)',
      schema: {
        type: 'object',
        required: ['recordingId', 'batchId', 'events', 'duplicate'],
        properties: { recordingId: recordingIdProperty, batchId: { type: 'string', description: 'Identifies the stored batch', example: '3f2a…' }, events: { type: 'integer', description: 'Events in the batch', example: 50 }, duplicate },
      },
    }),
    ApiResponse({ status: 400, description: 'Malformed JSON/NDJSON, invalid event (index or line named), empty batch, bad recordingId' }),
    ApiResponse({ status: 413, description: 'Body (or decompressed body, or one event) larger than the limit' }),
    ApiResponse({ status: 422, description: 'The Idempotency-Key was used before in this recording for other events; nothing was stored' }),
    ApiResponse({ status: 415, description: 'Unsupported Content-Type or Content-Encoding' }),
    ApiResponse({ status: 503, description: 'JetStream unreachable or did not confirm in time; nothing was acknowledged, retry' }),
  );

function ingestBatch(ingestion: IngestionService, rawId: unknown, req: FastifyRequest, auth: AuthContext) {
  const recordingId = recordingIdFrom(rawId);
  const format = formatOf(header(req, 'content-type'));
  const text = utf8(bodyBuffer(req, ingestion.maxBodyBytes));
  const batch = parseEventBatch(text, format, ingestion.maxEventBytes);
  return ingestion.ingest(auth.tenantId, recordingId, batch.events, batch.payload, clientInfo(req.headers, req.ip), header(req, 'idempotency-key'));
}

@ApiTags('ingestion')
@Controller('recordings/:recordingId')
export class IngestionController {
  constructor(private readonly ingestion: IngestionService) {}

  @Post(['events', 'ingest'])
  @IngestEndpoint('Create recording events', 'Also reachable as /recordings/{recordingId}/ingest (older rrweb clients).')
  @ApiParam({ name: 'recordingId', format: 'uuid' })
  ingest(@Param('recordingId') rawId: string, @Req() req: FastifyRequest, @CurrentAuth() auth: AuthContext) {
    return ingestBatch(this.ingestion, rawId, req, auth);
  }

  @Post(['metadata', 'meta'])
  @HttpCode(200)
  @Auth({ keys: ['public', 'secret'], queryToken: true })
  @ApiOperation({
    summary: 'Attach metadata',
    description:
      'Merges a JSON object of keys to values into the recording\'s metadata. Numbers and booleans are stored as their string form; later writes of a key overwrite earlier ones. Also reachable as /recordings/{recordingId}/meta. ' +
      'Metadata also arrives in-band as custom events (type 5) tagged recording-meta or pageview-meta.',
  })
  @ApiParam({ name: 'recordingId', format: 'uuid' })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: '1-128 characters [A-Za-z0-9_.:-]; a retry under the same key is stored once (duplicate: true); without one every write is new' })
  @ApiBody({ schema: { type: 'object', additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] }, example: { userId: 'user-123', plan: 'pro' } } })
  @ApiResponse({
    status: 200,
    schema: { type: 'object', required: ['recordingId', 'keys', 'duplicate'], properties: { recordingId: recordingIdProperty, keys: { type: 'integer', description: 'Keys written', example: 2 }, duplicate } },
  })
  @ApiResponse({ status: 400, description: 'Not an object, empty, nested values, too many keys, key too long' })
  @ApiJsonBodyLimits(METADATA_MAX_BYTES)
  @ApiResponse({ status: 422, description: 'The Idempotency-Key was used before in this recording for other metadata; nothing was stored' })
  @ApiResponse({ status: 503, description: 'JetStream unreachable' })
  async metadata(@Param('recordingId') rawId: string, @Req() req: FastifyRequest, @CurrentAuth() auth: AuthContext) {
    const recordingId = parseWith(uuidParam, rawId, 'recordingId');
    const metadata = this.ingestion.normalizeMetadata(jsonBody(req, METADATA_MAX_BYTES));
    return this.ingestion.attachMetadata(auth.tenantId, recordingId, metadata, header(req, 'idempotency-key'));
  }
}

/**
 * rrweb's official clients append `?recordingId=` when their serverUrl has no `{recordingId}` (a bare
 * origin, or …/ingest/ws): their HTTP fallback then POSTs to the same path without `/ws`.
 */
@ApiTags('ingestion')
@Controller()
export class IngestionQueryController {
  constructor(private readonly ingestion: IngestionService) {}

  @Post(['', 'events', 'ingest'])
  @IngestEndpoint(
    'Create recording events (recording id in the query)',
    "At /, /events or /ingest with ?recordingId=: where rrweb's browser clients post when their serverUrl has no {recordingId} placeholder.",
  )
  @ApiQuery({ name: 'recordingId', required: true, schema: { type: 'string', format: 'uuid' } })
  ingest(@Query('recordingId') rawId: unknown, @Req() req: FastifyRequest, @CurrentAuth() auth: AuthContext) {
    return ingestBatch(this.ingestion, rawId, req, auth);
  }
}
