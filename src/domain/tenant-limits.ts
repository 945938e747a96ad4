// A tenant's fair share of a shared instance (docs/limits.md, "Per-tenant limits"). Every limit has a
// default in the configuration (TENANT_*); a tenant's own value, set with the admin API or the CLI
// and stored with the tenant in the registry, wins over it. 0 means unlimited.

export const LIMIT_NAMES = [
  'ingestEventsPerSecond',
  'ingestBytesPerSecond',
  'webSockets',
  'readBytesPerSecond',
  'storedBytes',
  'renders',
  'rendersPerSecond',
  'liveViewers',
] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

/** Every limit's value; 0: unlimited. */
export type TenantLimits = Record<LimitName, number>;
/** The limits a tenant has of its own (the rest are the defaults). */
export type LimitOverrides = Partial<TenantLimits>;

/** What each limit bounds, for messages, documentation and the CLI. */
export const LIMIT_INFO: Record<LimitName, { unit: string; what: string; env: string; flag: string }> = {
  ingestEventsPerSecond: {
    unit: 'events per second',
    what: 'events ingested per second (HTTP and WebSocket)',
    env: 'TENANT_INGEST_EVENTS_PER_SECOND',
    flag: 'ingest-events-per-second',
  },
  ingestBytesPerSecond: {
    unit: 'bytes per second',
    what: 'bytes of events ingested per second (as stored, uncompressed)',
    env: 'TENANT_INGEST_BYTES_PER_SECOND',
    flag: 'ingest-bytes-per-second',
  },
  webSockets: { unit: 'open WebSockets', what: 'ingestion WebSockets open at once', env: 'TENANT_WEBSOCKETS', flag: 'websockets' },
  readBytesPerSecond: {
    unit: 'bytes per second',
    what: 'bytes per second of event and replay reads (JSON before compression)',
    env: 'TENANT_READ_BYTES_PER_SECOND',
    flag: 'read-bytes-per-second',
  },
  storedBytes: {
    unit: 'bytes',
    what: "bytes of event batches stored (the tenant's recordings, as GET /statistics counts them)",
    env: 'TENANT_STORED_BYTES',
    flag: 'stored-bytes',
  },
  renders: {
    unit: 'renders in progress or waiting',
    what: 'screenshots rendering or waiting for the renderer at once (rendered images served from the cache do not count)',
    env: 'TENANT_RENDERS',
    flag: 'renders',
  },
  rendersPerSecond: {
    unit: 'renders per second',
    what: 'screenshots rendered per second, all instances together (rendered images served from the cache do not count)',
    env: 'TENANT_RENDERS_PER_SECOND',
    flag: 'renders-per-second',
  },
  liveViewers: {
    unit: 'live viewers',
    what: 'live event feeds open at once (GET …/events?live=true, the live player), all instances together',
    env: 'TENANT_LIVE_VIEWERS',
    flag: 'live-viewers',
  },
};

/** The tenant's limits: its own values over the defaults. */
export function effectiveLimits(defaults: TenantLimits, overrides: LimitOverrides | undefined): TenantLimits {
  if (!overrides) return defaults;
  const out = { ...defaults };
  for (const name of LIMIT_NAMES) if (overrides[name] !== undefined) out[name] = overrides[name];
  return out;
}

/** Overrides changed by an update: a number sets a limit, null returns it to the default, absent keeps it. */
export function applyLimitChanges(current: LimitOverrides | undefined, changes: Partial<Record<LimitName, number | null>>): LimitOverrides | undefined {
  const next: LimitOverrides = { ...current };
  for (const name of LIMIT_NAMES) {
    const v = changes[name];
    if (v === null) delete next[name];
    else if (v !== undefined) next[name] = v;
  }
  return Object.keys(next).length ? next : undefined;
}

/** The configured defaults (TENANT_* variables). */
export function defaultLimits(cfg: {
  TENANT_INGEST_EVENTS_PER_SECOND: number;
  TENANT_INGEST_BYTES_PER_SECOND: number;
  TENANT_WEBSOCKETS: number;
  TENANT_READ_BYTES_PER_SECOND: number;
  TENANT_STORED_BYTES: number;
  TENANT_RENDERS: number;
  TENANT_RENDERS_PER_SECOND: number;
  TENANT_LIVE_VIEWERS: number;
}): TenantLimits {
  return {
    ingestEventsPerSecond: cfg.TENANT_INGEST_EVENTS_PER_SECOND,
    ingestBytesPerSecond: cfg.TENANT_INGEST_BYTES_PER_SECOND,
    webSockets: cfg.TENANT_WEBSOCKETS,
    readBytesPerSecond: cfg.TENANT_READ_BYTES_PER_SECOND,
    storedBytes: cfg.TENANT_STORED_BYTES,
    renders: cfg.TENANT_RENDERS,
    rendersPerSecond: cfg.TENANT_RENDERS_PER_SECOND,
    liveViewers: cfg.TENANT_LIVE_VIEWERS,
  };
}
