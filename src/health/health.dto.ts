// The probes' answers (GET /healthz, GET /readyz). With METRICS_TOKEN set, /readyz gives its details
// (each dependency's detail, `details`) only to a request carrying the token; the rest to everyone.
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';

export class Liveness extends createZodDto(z.object({ status: z.literal('ok') })) {}

export class Readiness extends createZodDto(
  z.object({
    ready: z.boolean().describe('NATS connected and the event stream present (and ClickHouse migrated when reachable)'),
    status: z.enum(['ready', 'degraded', 'not_ready']).describe('degraded: ready, but ClickHouse is unreachable (listings stale or 503)'),
    checks: z
      .record(z.string(), z.object({ ok: z.boolean(), detail: z.unknown().optional().describe('With METRICS_TOKEN set, only for a request that carries it') }))
      .describe('Each dependency: nats, stream, clickhouse, migrations')
      .meta({
        example: { nats: { ok: true }, stream: { ok: true, detail: { messages: 1200, bytes: 4096000 } }, clickhouse: { ok: true }, migrations: { ok: true } },
      }),
    details: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        'What other parts report (projection lag, renderer); never makes readiness fail. With METRICS_TOKEN set, only for a request that carries it (Authorization: Bearer)',
      ),
  }),
) {}
