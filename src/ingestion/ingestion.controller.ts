import { applyDecorators, Controller, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import { Auth, CurrentAuth } from '../auth/auth.decorator';
import type { AuthContext } from '../auth/auth-context';
import { ApiBadRequest, ApiJsonBodyLimits, ApiTextError } from '../common/openapi/api-responses';
import { ApiQueryParams, openApiSchema } from '../common/openapi/openapi-schema';
import { jsonBody, rawBody } from '../common/request-body';
import { RecordingIdParams } from '../domain/recording.dto';
import { formatOf } from './event-batch.parser';
import { EventBatch, IdempotencyKeySchema, IngestionQuerySchema, IngestResult, MetadataBody, MetadataResult } from './ingestion.dto';
import { INGEST_ROUTE, IngestionService } from './ingestion.service';
import { clientInfo, firstHeader } from './client-info';
import { recordingIdFrom } from './recording-id';

/** Largest metadata body, decoded. */
const METADATA_MAX_BYTES = 1024 * 1024;
const idempotencyKey = (description: string) =>
  ApiHeader({ name: 'Idempotency-Key', required: false, description, schema: openApiSchema(IdempotencyKeySchema, 'input') });

const header = (req: FastifyRequest, name: string) => firstHeader(req.headers[name]);

/** The one ingestion operation's documentation and auth, shared by its path and its query form. */
const IngestEndpoint = (summary: string, more: string) =>
  applyDecorators(
    HttpCode(200),
    // Refused before the body is read when the tenant is known to be over a limit (app.factory.ts).
    RouteConfig({ [INGEST_ROUTE]: true }),
    Auth({ keys: ['public', 'secret'], queryToken: true }),
    ApiOperation({
      summary,
      description:
        'Appends a batch of rrweb events to the recording (created on first write). Body: a JSON array of events, {"events":[...]}, or NDJSON (one event per line), optionally compressed (Content-Encoding gzip, deflate or br; zstd on Node.js 22.15 or later). ' +
        'Answers 200 only after JetStream stored the batch. A retry with the same Idempotency-Key, or with an identical body, is stored once (duplicate: true). ' +
        'The key may be given as ?token= for sendBeacon-style clients, once (given twice: 400 JSON, whatever the values). ' +
        "In-band metadata: type 5 events tagged recording-meta or pageview-meta; a recording-meta payload with includePii true also stores the client's ipAddress (as the proxies trusted by TRUST_PROXY report it in X-Forwarded-For, else the peer) and userAgent. " +
        more,
    }),
    // text/plain is read as JSON: what navigator.sendBeacon sends for a string body.
    ApiConsumes('application/json', 'text/plain', 'application/x-ndjson', 'application/ndjson'),
    idempotencyKey('1-128 characters [A-Za-z0-9_.:-]; same key = same batch (other events under a used key: 422)'),
    ApiHeader({
      name: 'Content-Encoding',
      required: false,
      description: 'identity (default), gzip (x-gzip), deflate, br; zstd where the runtime has it (Node.js 22.15 or later)',
    }),
    ApiBody({ description: 'JSON (application/json or text/plain): an array of events or {"events":[…]}; NDJSON: one event per line', type: EventBatch }),
    ApiResponse({ status: 200, description: 'Stored (or already stored: duplicate true)', type: IngestResult.Output }),
    ApiBadRequest(
      'Malformed JSON/NDJSON, invalid event (index or line named), empty batch (text/plain); bad recordingId, or token or recordingId given twice (JSON)',
      'Invalid event at index 0: "type" must be a non-negative integer',
    ),
    ApiResponse({ status: 413, description: 'Body (or decompressed body, or one event) larger than the limit' }),
    ApiResponse({ status: 422, description: 'The Idempotency-Key was used before in this recording for other events; nothing was stored' }),
    ApiTextError(
      429,
      "Over one of the tenant's ingestion rates (or the key's request rate): nothing was stored; retry after Retry-After (text/plain, names the limit). A request only a little ahead of the tenant's rates is not refused: it is held, its body unread, until its turn (at most TENANT_BURST_SECONDS), then stored and answered (docs/limits.md, Pacing)",
      'Ingestion rate limit reached: this tenant may use 5000 events per second (limit ingestEventsPerSecond); retry later',
    ),
    ApiTextError(
      507,
      "The tenant's stored-bytes quota is used up: nothing was stored (text/plain, names the limit)",
      'Storage quota exceeded: this tenant stores 21474836480 of its 21474836480 bytes (limit storedBytes); nothing of this batch was stored. …',
    ),
    ApiResponse({ status: 415, description: 'Unsupported Content-Type or Content-Encoding' }),
    ApiResponse({ status: 503, description: 'JetStream unreachable or did not confirm in time; nothing was acknowledged, retry' }),
  );

function ingestBatch(ingestion: IngestionService, recordingId: string, req: FastifyRequest, auth: AuthContext): Promise<IngestResult> {
  ingestion.precheck(auth.tenantId);
  return ingestion.ingestBody({
    tenantId: auth.tenantId,
    recordingId,
    format: formatOf(header(req, 'content-type')),
    ...rawBody(req),
    maxBodyBytes: ingestion.maxBodyBytes,
    maxEventBytes: ingestion.maxEventBytes,
    client: clientInfo(req.headers, req.ip),
    idempotencyKey: header(req, 'idempotency-key'),
  });
}

@ApiTags('ingestion')
@Controller('recordings/:recordingId')
export class IngestionController {
  constructor(private readonly ingestion: IngestionService) {}

  @Post(['events', 'ingest'])
  @IngestEndpoint('Create recording events', 'Also reachable as /recordings/{recordingId}/ingest (older rrweb clients).')
  ingest(@Param() { recordingId }: RecordingIdParams, @Req() req: FastifyRequest, @CurrentAuth() auth: AuthContext) {
    return ingestBatch(this.ingestion, recordingId, req, auth);
  }

  @Post(['metadata', 'meta'])
  @HttpCode(200)
  @Auth({ keys: ['public', 'secret'], queryToken: true })
  @ApiOperation({
    summary: 'Attach metadata',
    description:
      "Merges a JSON object of keys to values into the recording's metadata. Numbers and booleans are stored as their string form; later writes of a key overwrite earlier ones. Also reachable as /recordings/{recordingId}/meta. " +
      'Metadata also arrives in-band as custom events (type 5) tagged recording-meta or pageview-meta.',
  })
  @idempotencyKey('1-128 characters [A-Za-z0-9_.:-]; a retry under the same key is stored once (duplicate: true); without one every write is new')
  @ApiBody({ type: MetadataBody })
  @ApiResponse({ status: 200, type: MetadataResult.Output })
  @ApiBadRequest(
    'Not an object, empty, nested values, too many keys, key too long (text/plain); bad recordingId or token given twice (JSON)',
    'Metadata must be a JSON object of keys to values',
  )
  @ApiJsonBodyLimits(METADATA_MAX_BYTES)
  @ApiResponse({ status: 422, description: 'The Idempotency-Key was used before in this recording for other metadata; nothing was stored' })
  @ApiResponse({ status: 503, description: 'JetStream unreachable' })
  async metadata(@Param() { recordingId }: RecordingIdParams, @Req() req: FastifyRequest, @CurrentAuth() auth: AuthContext): Promise<MetadataResult> {
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
  @ApiQueryParams(IngestionQuerySchema)
  ingest(@Query('recordingId') rawId: unknown, @Req() req: FastifyRequest, @CurrentAuth() auth: AuthContext) {
    return ingestBatch(this.ingestion, recordingIdFrom(rawId), req, auth);
  }
}
