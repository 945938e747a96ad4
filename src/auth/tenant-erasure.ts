// The last step of a tenant deletion in the registry: every entry of the tenant (API keys, signing
// keys, then the tenant itself) is deleted, and once the other instances' watchers have had time to
// apply the deletions, their deletion markers are deleted too: a marker's key still names the tenant
// (`signing.<tenantId>.…`, `tenants.<tenantId>`). An instance cut off from NATS during that time keeps
// the tenant as "deleting" in memory (refused) until it restarts.
import type { NatsClient } from '../infrastructure/nats/nats-connection';
import { deleteKvRevision } from '../infrastructure/nats/kv-bucket';
import { TENANTS_BUCKET } from '../infrastructure/nats/subjects';
import type { TenantRegistry } from './tenant-registry';

/** How long deletion markers stay for the watchers of other instances (which see changes within about a second). */
export const MARKER_GRACE_MS = 2000;

export async function eraseTenantEntries(
  registry: Pick<TenantRegistry, 'entriesOf' | 'remove'>,
  nats: NatsClient,
  tenantId: string,
  graceMs = MARKER_GRACE_MS,
): Promise<number> {
  const markers: number[] = [];
  for (const key of registry.entriesOf(tenantId)) {
    const marker = await registry.remove(key);
    if (marker !== undefined) markers.push(marker);
  }
  await new Promise((r) => setTimeout(r, graceMs));
  for (const revision of markers) await deleteKvRevision(nats, TENANTS_BUCKET, revision);
  return markers.length;
}
