import { Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiValidationError } from '../common/openapi/api-responses';
import { adminBody, AdminRoute } from './admin-route.decorator';
import { ApiKeyList, CreateApiKeyBody, CreatedApiKey, KeyParams, TenantParams } from './admin.dto';
import { TenantAdmin } from './tenant-admin.service';

@ApiTags('admin')
@Controller('admin/tenants/:tenantId/keys')
export class AdminKeysController {
  constructor(private readonly admin: TenantAdmin) {}

  @Post()
  @AdminRoute({ body: CreateApiKeyBody })
  @ApiOperation({
    summary: 'Create an API key',
    description:
      'Generates a public (public_key_svc_*, ingestion and metadata) or secret (secret_key_svc_*, full access) key. The key is in this response only: the service stores its SHA-256. ' +
      'allowedOrigins restricts browser use: a request whose Origin header is not listed is refused (requests without Origin are not affected).',
  })
  @ApiResponse({ status: 201, description: 'The key (shown once) and its handle', type: CreatedApiKey.Output })
  @ApiValidationError('Invalid tenantId or body (JSON {error, message, issues})')
  create(@Param() { tenantId }: TenantParams, @Req() req: FastifyRequest): Promise<CreatedApiKey> {
    return this.admin.createKey(tenantId, adminBody(CreateApiKeyBody, req));
  }

  @Get()
  @AdminRoute()
  @ApiOperation({ summary: "List a tenant's API keys", description: 'Handles, kinds and origins only; never the keys.' })
  @ApiResponse({ status: 200, type: ApiKeyList.Output })
  @ApiValidationError('Invalid tenantId')
  list(@Param() { tenantId }: TenantParams): ApiKeyList {
    return { keys: this.admin.listKeys(tenantId) };
  }

  @Delete(':handle')
  @HttpCode(204)
  @AdminRoute()
  @ApiOperation({ summary: 'Revoke an API key', description: 'By handle (never put a key in a URL). Every instance refuses the key within about a second.' })
  @ApiResponse({ status: 204, description: 'Revoked' })
  @ApiValidationError('Invalid tenantId, or a handle that is not one (16 hex digits)')
  async revoke(@Param() { tenantId, handle }: KeyParams): Promise<void> {
    await this.admin.revokeKey(tenantId, handle);
  }
}
