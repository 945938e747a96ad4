// JetStream key-value buckets as streams: whether one exists, and deleting single entries' messages
// (a deletion marker still holds its key: erasing what names a tenant deletes the marker too).
import { isAlreadyDeleted, isNoMessage, isStreamNotFound } from './jetstream-errors';
import type { NatsClient } from './nats-connection';

const streamOf = (bucket: string) => `KV_${bucket}`;

/** Whether the bucket exists, without creating it. */
export async function kvBucketExists(nats: NatsClient, bucket: string): Promise<boolean> {
  try {
    await nats.jsm.streams.info(streamOf(bucket));
    return true;
  } catch (e) {
    if (!isStreamNotFound(e)) throw e;
    return false;
  }
}

/** Deletes the bucket's message at `revision` (an entry's deletion marker); one already gone counts as deleted. */
export async function deleteKvRevision(nats: NatsClient, bucket: string, revision: number): Promise<void> {
  await nats.jsm.streams.deleteMessage(streamOf(bucket), revision, false).catch((e: unknown) => {
    if (!isAlreadyDeleted(e)) throw e;
  });
}

/**
 * Deletes the messages of every key of the bucket that matches `keyFilter` (NATS subject wildcards:
 * `rate.<tenantId>.>`), leaving no deletion marker; returns how many were deleted.
 */
export async function deleteKvKeys(nats: NatsClient, bucket: string, keyFilter: string): Promise<number> {
  if (!(await kvBucketExists(nats, bucket))) return 0;
  const info = await nats.jsm.streams.info(streamOf(bucket), { subjects_filter: `$KV.${bucket}.${keyFilter}` });
  let deleted = 0;
  for (const subject of Object.keys(info.state.subjects ?? {})) {
    const last = await nats.jsm.streams.getMessage(streamOf(bucket), { last_by_subj: subject }).catch((e: unknown) => {
      if (isNoMessage(e)) return undefined;
      throw e;
    });
    if (last === undefined) continue;
    await deleteKvRevision(nats, bucket, last.seq);
    deleted++;
  }
  return deleted;
}
