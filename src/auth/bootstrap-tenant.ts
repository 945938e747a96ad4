// The bootstrap tenant from the environment, applied at every start through the same registry
// calls the CLI and admin API use; applying it twice changes nothing.
import type { AppConfig } from '../config/config';
import type { TenantRegistry } from './tenant-registry';

export async function applyBootstrapTenant(registry: TenantRegistry, cfg: AppConfig): Promise<boolean> {
  const id = cfg.TAPEDECK_BOOTSTRAP_TENANT_ID;
  if (!id) return false;
  // Being deleted: its deletion finishes first (creating keys is refused meanwhile); the next start creates it again.
  if ((await registry.createTenant(id)).status === 'deleting') return false;
  await registry.createKey(id, 'public', cfg.TAPEDECK_BOOTSTRAP_PUBLIC_KEY);
  await registry.createKey(id, 'secret', cfg.TAPEDECK_BOOTSTRAP_SECRET_KEY);
  if (cfg.TAPEDECK_BOOTSTRAP_SIGNING_KEY_ID && cfg.TAPEDECK_BOOTSTRAP_SIGNING_SECRET) {
    await registry.createSigningKey(id, cfg.TAPEDECK_BOOTSTRAP_SIGNING_KEY_ID, cfg.TAPEDECK_BOOTSTRAP_SIGNING_SECRET);
  }
  return true;
}
