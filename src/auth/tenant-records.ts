// What the tenant registry stores: a tenant, an API key (by its hash) and a signing key, as JSON in
// the tenants bucket (tenant-registry.ts).
import type { LimitOverrides } from '../domain/tenant-limits';
import type { KeyKind } from './key-material';
import type { TenantDeletionState, TenantStatus } from './tenant-status';

export interface Tenant {
  id: string;
  name: string;
  createdAt: number;
  retentionDays?: number;
  /** Absent: active. */
  status?: TenantStatus;
  /** When the current status was set, epoch ms. */
  statusSince?: number;
  deletion?: TenantDeletionState;
  /** The tenant's own limits (the others are the configured defaults; domain/tenant-limits.ts). */
  limits?: LimitOverrides;
}
export interface ApiKeyRecord {
  tenantId: string;
  kind: KeyKind;
  handle: string;
  hash: string;
  createdAt: number;
  allowedOrigins?: string[];
}
export interface SigningKey {
  tenantId: string;
  keyId: string;
  secret: string;
  createdAt: number;
}

/** The signing key every new tenant is given. */
export const DEFAULT_SIGNING_KEY_ID = 'default';
