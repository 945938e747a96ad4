// A tenant's place in its lifecycle: active (no status), suspended (every key and link refused with
// 403, data kept, resumable) or deleting (refused the same way while its data is removed; the tenant
// record goes last). Kept in the tenant's registry entry, so every instance refuses within a second.
import { AppError } from '../common/app-error';

export const TENANT_STATUSES = ['suspended', 'deleting'] as const;
export type TenantStatus = (typeof TENANT_STATUSES)[number];

/** The steps of a tenant deletion, in order (see src/admin/tenant-deletion.ts). */
export const DELETION_STEPS = ['refuse', 'stream', 'projections', 'archives', 'registry'] as const;
export type DeletionStep = (typeof DELETION_STEPS)[number];

/** Where a deletion stands: the step it was at when last seen, and why its last run stopped, if it failed. */
export interface TenantDeletionState {
  step: DeletionStep;
  /** When this step began, epoch ms. */
  updatedAt: number;
  /** The failure that stopped the last run; running the deletion again finishes it. */
  error?: string;
}

/** Why requests of a tenant are refused, or undefined when it is active. `undefined` tenant: it does not exist (any more). */
export function tenantRefusal(id: string, t: { status?: TenantStatus } | undefined): string | undefined {
  if (!t) return `Tenant ${id} does not exist`;
  switch (t.status) {
    case undefined:
      return undefined;
    case 'suspended':
      return `Tenant ${id} is suspended: its keys and presigned links are refused until an operator resumes it`;
    case 'deleting':
      return `Tenant ${id} is being deleted: its keys and presigned links are refused`;
  }
}

/** The 403 for a request of a tenant that is not active. */
export const tenantRefused = (message: string) => new AppError('forbidden', message);

/** The 403 for a tenant that has just been suspended, set for deletion or deleted. */
export const refusalFor = (id: string, status: TenantStatus | 'deleted') => tenantRefused(tenantRefusal(id, status === 'deleted' ? undefined : { status })!);
