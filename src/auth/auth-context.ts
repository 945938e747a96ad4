import type { PresignScope } from './presign';

export type Credential = 'public' | 'secret' | 'presigned';

export interface AuthContext {
  tenantId: string;
  credential: Credential;
  /** Non-secret handle of the API key (absent for presigned links). */
  keyHandle?: string;
  /** For presigned links: what the link may read, and until when (UNIX seconds). */
  scope?: PresignScope;
  expires?: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
  }
}
