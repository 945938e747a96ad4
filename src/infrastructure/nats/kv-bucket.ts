// JetStream key-value buckets as streams: whether one exists, and deleting single entries' messages
// (a deletion marker still holds its key: erasing what names a tenant deletes the marker too).
import { isAlreadyDeleted, isStreamNotFound } from './jetstream-errors';
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
