// Configuration, parsed once at start from the environment. Nothing else reads process.env:
// a bad value fails fast with the variable's name (see loadConfig).
import { z } from 'zod';
import { parseTrustProxy } from '../common/trust-proxy';

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');
/** Decimal numbers only: z.coerce.number took '0x50' for 80 and ' ' for 0. */
const decimal = (v: unknown) => (typeof v === 'string' ? (/^-?\d+(?:\.\d+)?$/.test(v.trim()) ? Number(v) : Number.NaN) : v);
/** A decimal number, with its own bounds: `number((n) => n.int().min(-1))`. */
const number = (bounds: (n: z.ZodNumber) => z.ZodNumber = (n) => n) => z.preprocess(decimal, bounds(z.number({ error: 'must be a decimal number' })));
const int = (min: number, max: number) => number((n) => n.int().min(min).max(max));
/** A whole number from 0 up to 2^53 - 1 (byte counts and rates). */
const count = () => int(0, Number.MAX_SAFE_INTEGER);
/** An http(s) URL: ClickHouse's client and the links the service prints need the scheme. */
const httpUrl = (what: string) => z.string().regex(/^https?:\/\/[^\s/?#]+/i, { message: `must be an http:// or https:// URL (${what})` });
const optional = <T extends z.ZodTypeAny>(s: T) => z.preprocess((v) => (v === '' ? undefined : v), s.optional());

/** A CSP scheme source (`https:`) or host source (`https://*.example.com:443/path`), or `*`; never a quoted keyword. */
const ASSET_SOURCE = /^(?:\*|[a-z][a-z0-9+.-]*:|(?:[a-z][a-z0-9+.-]*:\/\/)?(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::(?:\d{1,5}|\*))?(?:\/[^\s;,'"]*)?)$/i;

export const configSchema = z.object({
  PORT: int(0, 65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  /** api: HTTP/WebSocket only; projector: projection workers only; all: both. */
  TAPEDECK_ROLE: z.enum(['api', 'projector', 'all']).default('all'),
  /** Public base URL used in links that leave the process (player, signed links). Empty: relative links. */
  PUBLIC_BASE_URL: z.union([z.literal(''), httpUrl('the address clients reach the service at')]).default(''),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** json: one JSON object per line; pretty: short lines for a person; auto: pretty when stdout is a terminal. */
  LOG_FORMAT: z.enum(['json', 'pretty', 'auto']).default('auto'),

  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  NATS_USER: optional(z.string()),
  NATS_PASSWORD: optional(z.string()),
  /** JetStream stream replicas: 1 locally, 3 in a cluster. */
  STREAM_REPLICAS: int(1, 5).default(1),
  /** Maximum age of stored events, in days (0: keep forever). */
  STREAM_MAX_AGE_DAYS: int(0, 36500).default(0),
  /** Tests only: the stream's age limit in seconds, instead of STREAM_MAX_AGE_DAYS (0: the days apply). */
  STREAM_MAX_AGE_SECONDS: int(0, 86400).default(0),
  /** Maximum bytes the event stream may hold (-1: unlimited). */
  STREAM_MAX_BYTES: number((n) => n.int().min(-1)).default(-1),
  /** JetStream de-duplication window for Nats-Msg-Id, in seconds. */
  /**
   * JetStream's own stream compression (nats-server >= 2.10; docs/archives.md). On an older server
   * `s2` is logged and left off: 2.9 has no such setting.
   */
  STREAM_COMPRESSION: z.enum(['none', 's2']).default('none'),
  STREAM_DUPLICATE_WINDOW_SECONDS: int(1, 7 * 24 * 3600).default(24 * 3600),

  CLICKHOUSE_URL: httpUrl('the HTTP interface, e.g. http://127.0.0.1:8123').default('http://127.0.0.1:8123'),
  CLICKHOUSE_USER: z.string().default('default'),
  CLICKHOUSE_PASSWORD: z.string().default(''),
  CLICKHOUSE_DATABASE: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .default('tapedeck'),

  CHROMIUM_PATH: z.string().default('/usr/bin/chromium'),
  /**
   * Chromium's CPU priority below the service's, as a nice value (0: the same; Linux only): renders
   * then take the CPU the service leaves, so one tenant's screenshots do not slow every tenant's
   * ingestion and reads (docs/limits.md, Rendering).
   */
  RENDER_NICE: int(0, 19).default(5),
  /**
   * Where Chromium is driven from: `worker`, a thread of its own in the process (Playwright's work and
   * garbage then never delay a request), or `service`, the service's own thread (docs/limits.md, Rendering).
   */
  RENDER_THREAD: z.enum(['worker', 'service']).default('worker'),
  RENDER_CONCURRENCY: int(1, 64).default(2),
  /** Chromium browsers the renderer may run, so that tenants rendering at once do not share one (at most RENDER_CONCURRENCY). */
  RENDER_BROWSERS: int(1, 64).default(2),
  RENDER_QUEUE: int(0, 10000).default(16),
  RENDER_TIMEOUT_MS: int(100, 120000).default(15000),
  /**
   * Server-made keyframes (docs/keyframes.md, projector role): a recording gets one once its last
   * keyframe is this many minutes (0: never by time) or KEYFRAME_EVERY_BYTES of events (0: never by
   * size) behind its end.
   */
  KEYFRAME_EVERY_MINUTES: int(0, 24 * 60).default(5),
  KEYFRAME_EVERY_BYTES: int(0, 1024 * 1024 * 1024).default(5 * 1024 * 1024),
  /** Recordings replayed at once to make keyframes (0: the service makes none). */
  KEYFRAME_CONCURRENCY: int(0, 16).default(1),
  /** How often the projector role looks for recordings that need keyframes. */
  KEYFRAME_SCAN_SECONDS: int(1, 86400).default(30),
  /** Time limit of one recording's replay for its keyframes. */
  KEYFRAME_TIMEOUT_MS: int(1000, 30 * 60 * 1000).default(120000),

  /** Largest accepted ingestion request body (after decompression), bytes. */
  INGEST_MAX_BODY_BYTES: int(1024, 1024 * 1024 * 1024).default(64 * 1024 * 1024),
  /** Largest single event, bytes. */
  INGEST_MAX_EVENT_BYTES: int(1024, 1024 * 1024 * 1024).default(32 * 1024 * 1024),
  /** Worker threads that decode, parse and validate large HTTP batches (0: all in the service's own thread). */
  INGEST_THREADS: int(0, 16).default(1),
  /** Batches of at least this many bytes (a compressed one counted 8 to 1) are prepared in those threads. */
  INGEST_THREAD_MIN_BYTES: int(0, 1024 * 1024 * 1024).default(64 * 1024),
  /** Those threads' CPU priority below the service's thread, as a nice value (0: the same; Linux). */
  INGEST_THREAD_NICE: int(0, 19).default(5),
  /** 1: GET …/events bodies are assembled in a worker thread of their own (read-thread.ts); 0: in the service's thread. */
  READ_THREADS: int(0, 1).default(1),
  /** That thread's CPU priority below the service's thread, as a nice value (0: the same; Linux). */
  READ_THREAD_NICE: int(0, 19).default(5),
  /** How long an ingestion request waits for JetStream before answering 503. */
  INGEST_PUBLISH_TIMEOUT_MS: int(100, 120000).default(5000),
  /**
   * Time a client has to send a whole HTTP request, headers and body; a slower one is answered 408
   * and its connection closed (slow-body clients). Responses and open WebSockets are not limited.
   */
  REQUEST_TIMEOUT_MS: int(1000, 3_600_000).default(60_000),
  WS_MAX_CONNECTIONS: int(1, 1_000_000).default(10000),
  WS_MAX_MESSAGE_BYTES: int(1024, 1024 * 1024 * 1024).default(32 * 1024 * 1024),
  /** Interval of WebSocket pings; a connection that has not answered the previous one is closed (1001). */
  WS_HEARTBEAT_MS: int(500, 600_000).default(20_000),
  /** Requests per second per API key (token bucket; 0 disables). */
  RATE_LIMIT_PER_SECOND: number((n) => n.min(0)).default(0),
  RATE_LIMIT_BURST: int(1, 1_000_000).default(1000),
  /**
   * Per-tenant limits' defaults (docs/limits.md; a tenant's own values, set with the admin API or the
   * CLI, win; 0: unlimited). Chosen from measurements on the 2-core reference machine so that one
   * tenant at every limit leaves the others their normal latency (bench `noisy-neighbour`).
   */
  TENANT_INGEST_EVENTS_PER_SECOND: count().default(5000),
  TENANT_INGEST_BYTES_PER_SECOND: count().default(2 * 1024 * 1024),
  TENANT_WEBSOCKETS: count().default(1000),
  TENANT_READ_BYTES_PER_SECOND: count().default(2 * 1024 * 1024),
  TENANT_STORED_BYTES: count().default(20 * 1024 * 1024 * 1024),
  /** Screenshots of a tenant rendering or waiting at once, all instances together (a browser asks at most 6 at once per host). */
  TENANT_RENDERS: count().default(8),
  /**
   * Screenshots a tenant may have rendered per second, all instances together (a token bucket of
   * TENANT_BURST_SECONDS): what one tenant's renders may take of the renderer's CPU, whatever their number at once.
   */
  TENANT_RENDERS_PER_SECOND: count().default(5),
  /** Live event feeds (live players) of a tenant open at once, all instances together. */
  TENANT_LIVE_VIEWERS: count().default(200),
  /** How many seconds of a rate a tenant may use at once after being idle (token bucket depth). */
  TENANT_BURST_SECONDS: number((n) => n.min(0.1).max(3600)).default(2),
  /**
   * Whether each tenant's HTTP ingestion requests (and renders) are spaced to its rates in each instance (a
   * request ahead of them waits, up to TENANT_BURST_SECONDS, before its body is read) instead of
   * going on at once while the bucket holds tokens (docs/limits.md, Pacing).
   */
  TENANT_PACING: bool.default(true),
  /**
   * CPU pressure (0–1: the share of time some task waits for a core, from CPU_PRESSURE_FILE) above
   * which the tenants pressing against their limits are slowed below them while other tenants work
   * (docs/limits.md, Contention); 0 disables.
   */
  TENANT_CPU_PRESSURE: number((n) => n.min(0).max(1)).default(0.25),
  /** The kernel's CPU pressure (PSI) file: the machine's, or a cgroup's (`/sys/fs/cgroup/cpu.pressure`) in a container. */
  CPU_PRESSURE_FILE: z.string().min(1).default('/proc/pressure/cpu'),
  /** How often an instance re-reads an ingesting tenant's stored bytes from the projections. */
  TENANT_USAGE_REFRESH_SECONDS: int(1, 3600).default(10),

  /** Longest lifetime a presigned link may have, seconds. */
  PRESIGN_MAX_TTL_SECONDS: int(1, 365 * 24 * 3600).default(7 * 24 * 3600),
  /** Lifetime of links the service signs itself (includeSignedUrls, player pages), seconds. */
  PRESIGN_DEFAULT_TTL_SECONDS: int(1, 365 * 24 * 3600).default(3600),
  /**
   * Peers whose X-Forwarded-For/-Proto/-Host are believed (common/trust-proxy.ts): true, false, a hop
   * count, or IPs/CIDRs/`loopback`/`linklocal`/`uniquelocal`. The default trusts proxies on the
   * loopback and private networks, never a client on the internet.
   */
  TRUST_PROXY: z
    .string()
    .default('loopback,linklocal,uniquelocal')
    .transform((v, ctx) => {
      try {
        return parseTrustProxy(v);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: `must be true, false, a hop count or a comma-separated list of IPs/CIDRs (${(e as Error).message})` });
        return z.NEVER;
      }
    }),
  /** Strict-Transport-Security max-age sent on HTTPS requests (as seen through X-Forwarded-Proto); 0: none. */
  HSTS_MAX_AGE_SECONDS: int(0, 2 * 365 * 86400).default(0),
  /** CSP frame-ancestors for the player page. */
  PLAYER_FRAME_ANCESTORS: z.string().default("'self'"),
  /**
   * Where the player may load the recorded site's images, fonts, stylesheets and media from (CSP
   * sources such as `https:` or `https://cdn.example.com`, space-separated). Empty: nowhere, the
   * viewer's browser fetches nothing of the recorded site.
   */
  PLAYER_ASSET_SOURCES: z
    .string()
    .default('')
    .refine(
      (v) =>
        v.trim() === '' ||
        v
          .trim()
          .split(/\s+/)
          .every((s) => ASSET_SOURCE.test(s)),
      {
        message: "a space-separated list of CSP scheme or host sources (e.g. 'https:' or 'https://cdn.example.com'), no keywords",
      },
    ),
  /** How long a console sign-in lasts (seconds) before the console asks for the key again. */
  CONSOLE_SESSION_TTL_SECONDS: int(60, 7 * 24 * 3600).default(8 * 3600),
  /** Admin HTTP API bearer token; the admin API is off when unset. */
  TAPEDECK_ADMIN_TOKEN: optional(z.string().min(16)),
  /** Bearer token for /metrics and the details of /readyz; unset, both are open (its status code always is). */
  METRICS_TOKEN: optional(z.string().min(16)),

  TAPEDECK_BOOTSTRAP_TENANT_ID: optional(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/)),
  TAPEDECK_BOOTSTRAP_PUBLIC_KEY: optional(z.string().regex(/^public_key_svc_[A-Za-z0-9_-]{16,}$/)),
  TAPEDECK_BOOTSTRAP_SECRET_KEY: optional(z.string().regex(/^secret_key_svc_[A-Za-z0-9_-]{16,}$/)),
  TAPEDECK_BOOTSTRAP_SIGNING_KEY_ID: optional(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/)),
  TAPEDECK_BOOTSTRAP_SIGNING_SECRET: optional(z.string().min(16)),

  /**
   * A recording is live while the service stored one of its batches within this many seconds (server
   * clock). rrweb sends nothing while a user does nothing, so a reader who neither moves nor scrolls for
   * longer shows as not live until the next event.
   */
  LIVE_IDLE_SECONDS: int(1, 24 * 3600).default(60),
  /** A live viewer with more than this many bytes waiting to be sent is dropped (close reason slow_viewer). */
  LIVE_VIEWER_BUFFER_BYTES: int(64 * 1024, 1024 * 1024 * 1024).default(8 * 1024 * 1024),
  /** How often the projector role deletes recordings past their tenant's retention period (0: never). */
  RETENTION_SWEEP_SECONDS: int(0, 7 * 86400).default(3600),
  /**
   * A recording whose last batch was stored this many seconds ago is sealed into a compressed archive
   * by the projector role (docs/archives.md; 0: only on demand, `recordings seal`).
   */
  ARCHIVE_IDLE_SECONDS: int(0, 365 * 86400).default(1800),
  /**
   * A recording whose last batch was stored this many seconds ago gets its thumbnail rendered in the
   * background by every API instance (docs/console.md; 0: only when GET …/thumbnail asks).
   */
  THUMBNAIL_IDLE_SECONDS: int(0, 7 * 86400).default(120),
  /** How often the API role looks for recordings that became idle, for thumbnails. */
  THUMBNAIL_SCAN_SECONDS: int(1, 3600).default(30),
  /** Most thumbnails queued per scan (tenants taken in turn). */
  THUMBNAIL_PASS_LIMIT: int(1, 1000).default(50),
  /** Recordings sealed at once per projector process (0: none, not even ones cut short). */
  ARCHIVE_CONCURRENCY: int(0, 16).default(1),
  /** How often the projector role looks for idle recordings to seal. */
  ARCHIVE_SCAN_SECONDS: int(1, 86400).default(60),
  /**
   * Between a seal's commit and the deletion of the messages it replaced: reads planned on those
   * messages finish first (a read cut by the deletion answers 503 or ends short).
   */
  ARCHIVE_REMOVE_DELAY_SECONDS: int(0, 3600).default(60),
  /** Crash tests only: the seal step after which the process kills itself (ARCHIVE_CRASH_SIGNAL). */
  ARCHIVE_CRASH_AFTER: z.enum(['', 'sealing', 'archived', 'published', 'removing']).default(''),
  /**
   * Crash tests only: the signal the process sends itself there, once. SIGSTOP holds the seal at that
   * step (a test kills another server meanwhile) until SIGCONT.
   */
  ARCHIVE_CRASH_SIGNAL: z.enum(['SIGKILL', 'SIGSTOP']).default('SIGKILL'),
  /**
   * Crash tests only: a seal step before ARCHIVE_CRASH_AFTER's at which the process stops itself
   * (SIGSTOP) once, so a test acts there (a racing deletion's marker), then SIGCONTs it on to its crash.
   */
  ARCHIVE_HOLD_AFTER: z.enum(['', 'sealing', 'archived', 'published', 'removing']).default(''),
  /** Most messages per projector batch (one ClickHouse insert per table). */
  PROJECTOR_BATCH: int(1, 10000).default(500),
  /** How long a projector's pull waits for the first message when idle (nats.js requires >= 1000). */
  PROJECTOR_FETCH_EXPIRES_MS: int(1000, 60000).default(1000),
  /** After a batch's first message, how long a partial batch may fill before it is written. */
  PROJECTOR_LINGER_MS: int(0, 5000).default(100),
  /** A projector writes a partial batch no sooner than this long after its previous write began (ClickHouse pays per insert). */
  PROJECTOR_WRITE_INTERVAL_MS: int(0, 10000).default(500),
});

export type AppConfig = z.infer<typeof configSchema>;
export const APP_CONFIG = Symbol('APP_CONFIG');

/** The event stream's age limit in milliseconds (0: none): STREAM_MAX_AGE_DAYS, or the tests' seconds. */
export function streamMaxAgeMs(cfg: Pick<AppConfig, 'STREAM_MAX_AGE_DAYS' | 'STREAM_MAX_AGE_SECONDS'>): number {
  return cfg.STREAM_MAX_AGE_SECONDS > 0 ? cfg.STREAM_MAX_AGE_SECONDS * 1000 : cfg.STREAM_MAX_AGE_DAYS * 86_400_000;
}

export class ConfigError extends Error {}

/** Parses the environment once; throws a ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  // An empty variable is an unset one (as Compose and Kubernetes templates write them): its default
  // applies. Numbers used to read '' as 0 (PORT= bound a random port, RETENTION_SWEEP_SECONDS= turned
  // retention off).
  const set = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''));
  const parsed = configSchema.safeParse(set);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const cfg = parsed.data;
  const boot = [cfg.TAPEDECK_BOOTSTRAP_TENANT_ID, cfg.TAPEDECK_BOOTSTRAP_PUBLIC_KEY, cfg.TAPEDECK_BOOTSTRAP_SECRET_KEY];
  if (boot.some((v) => v) && !boot.every((v) => v)) {
    throw new ConfigError(
      'Invalid configuration:\n  TAPEDECK_BOOTSTRAP_TENANT_ID, TAPEDECK_BOOTSTRAP_PUBLIC_KEY and TAPEDECK_BOOTSTRAP_SECRET_KEY must be set together',
    );
  }
  if (!!cfg.TAPEDECK_BOOTSTRAP_SIGNING_KEY_ID !== !!cfg.TAPEDECK_BOOTSTRAP_SIGNING_SECRET) {
    throw new ConfigError('Invalid configuration:\n  TAPEDECK_BOOTSTRAP_SIGNING_KEY_ID and TAPEDECK_BOOTSTRAP_SIGNING_SECRET must be set together');
  }
  return cfg;
}

export { bool as booleanString };
