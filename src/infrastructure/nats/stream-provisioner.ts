// The admin plane: creates the event stream and the tenants bucket at boot, and fails loudly when an
// existing stream's shape differs from what this build expects. Nothing else calls jetstreamManager.
import { Logger } from '@nestjs/common';
import { DiscardPolicy, RetentionPolicy, StorageType, StoreCompression, StreamConfig, nanos } from 'nats';
import { AppConfig, streamMaxAgeMs } from '../../config/config';
import { ArchiveStore } from './archive-store';
import type { NatsClient } from './nats-connection';
import { SealStates } from './seal-states';
import { ALL_RECORDINGS, ARCHIVES_BUCKET, EVENTS_STREAM } from './subjects';

export function eventStreamConfig(cfg: AppConfig): Partial<StreamConfig> & { name: string } {
  return {
    name: EVENTS_STREAM,
    subjects: [ALL_RECORDINGS],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    num_replicas: cfg.STREAM_REPLICAS,
    max_age: nanos(streamMaxAgeMs(cfg)),
    max_bytes: cfg.STREAM_MAX_BYTES,
    // When full, refuse new data (the client sees an error) rather than silently drop old data.
    discard: DiscardPolicy.New,
    duplicate_window: nanos(cfg.STREAM_DUPLICATE_WINDOW_SECONDS * 1000),
    max_msg_size: -1,
    allow_direct: true,
    deny_delete: false,
    deny_purge: false,
  };
}

/** The archive bucket's stream (nats.js names it after the bucket). */
const ARCHIVES_STREAM = `OBJ_${ARCHIVES_BUCKET}`;

/**
 * The archive bucket's age limit in milliseconds (0: none), with a stream age limit: a backstop for
 * archives no deletion removed (a put cut short, an older generation whose records aged out before
 * a new seal replaced them). Retention deletes recordings, archives included, before the stream's
 * limit (globalRetentionMs); an archive must outlive every record naming it, and those are stored by
 * the seal that put it, moments later, then kept the stream's limit: so twice that limit, and at
 * least a day more.
 */
export function archiveMaxAgeMs(cfg: Pick<AppConfig, 'STREAM_MAX_AGE_DAYS' | 'STREAM_MAX_AGE_SECONDS'>): number {
  const stream = streamMaxAgeMs(cfg);
  return stream > 0 ? stream + Math.max(86_400_000, stream) : 0;
}

/** Whether the server takes stream compression (nats-server 2.10 and later). */
export function serverCompresses(version: string | undefined): boolean {
  const [major, minor] = (version ?? '0.0').split('.').map(Number);
  return major > 2 || (major === 2 && minor >= 10);
}

/** STREAM_COMPRESSION as the server can take it: s2 only from nats-server 2.10 on (older servers refuse the field). */
function wantedCompression(nats: NatsClient, cfg: AppConfig, logger: Logger): StoreCompression | undefined {
  if (cfg.STREAM_COMPRESSION !== 's2') return undefined;
  if (serverCompresses(nats.nc.info?.version)) return StoreCompression.S2;
  logger.warn({ msg: 'STREAM_COMPRESSION=s2 needs nats-server 2.10 or later; the stream stays uncompressed', server: nats.nc.info?.version });
  return undefined;
}

export async function provisionStreams(nats: NatsClient, cfg: AppConfig): Promise<void> {
  const logger = new Logger('provision');
  const compression = wantedCompression(nats, cfg, logger);
  // Archives and seal states, kept as safe as the stream (docs/archives.md).
  const archivesMaxAge = archiveMaxAgeMs(cfg);
  await new ArchiveStore(nats, cfg.STREAM_REPLICAS, archivesMaxAge).open();
  const archivesStream = (await nats.jsm.streams.info(ARCHIVES_STREAM)).config;
  if (archivesStream.max_age !== nanos(archivesMaxAge)) {
    await nats.jsm.streams.update(archivesStream.name, { ...archivesStream, max_age: nanos(archivesMaxAge) });
    logger.log({ msg: 'updated the archive bucket age limit', bucket: ARCHIVES_BUCKET, maxAgeMs: archivesMaxAge });
  }
  await new SealStates(nats, cfg.STREAM_REPLICAS).open();
  const want = { ...eventStreamConfig(cfg), ...(compression ? { compression } : {}) };
  let info;
  try {
    info = await nats.jsm.streams.info(EVENTS_STREAM);
  } catch (e) {
    if (!String((e as Error).message).includes('not found')) throw e;
  }
  if (!info) {
    await nats.jsm.streams.add(want);
    logger.log({ msg: 'created stream', stream: EVENTS_STREAM, replicas: want.num_replicas });
  } else {
    const have = info.config;
    if (JSON.stringify(have.subjects) !== JSON.stringify(want.subjects) || have.storage !== want.storage) {
      throw new Error(
        `Stream ${EVENTS_STREAM} exists with subjects ${JSON.stringify(have.subjects)} / storage ${have.storage}; this build expects ${JSON.stringify(want.subjects)} / ${want.storage}. Refusing to start.`,
      );
    }
    if (have.num_replicas !== want.num_replicas) {
      logger.warn({ msg: 'stream replicas differ from STREAM_REPLICAS; leaving as is', have: have.num_replicas, want: want.num_replicas });
    }
    const drift =
      have.max_age !== want.max_age || have.max_bytes !== want.max_bytes || have.duplicate_window !== want.duplicate_window || have.discard !== want.discard;
    const recompress = compression !== undefined && have.compression !== compression;
    if (drift || recompress) {
      await nats.jsm.streams.update(EVENTS_STREAM, {
        ...have,
        ...(compression ? { compression } : {}),
        max_age: want.max_age!,
        max_bytes: want.max_bytes!,
        duplicate_window: want.duplicate_window!,
        discard: want.discard!,
      });
      logger.log({ msg: 'updated stream limits', stream: EVENTS_STREAM });
    }
  }
}
