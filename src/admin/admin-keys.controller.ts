import { Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { jsonBody } from '../common/request-body';
import { parseWith } from '../common/validation';
import { ADMIN_MAX_BODY_BYTES, AdminRoute } from './admin-route.decorator';
import { createdKeySchema, keyListSchema } from './admin-responses.schemas';
import { createKeySchema, keyHandleSchema, openApiBody, tenantIdSchema } from './admin.schemas';
import { TenantAdmin } from './tenant-admin.service';

@ApiTags('admin')
@Controller('admin/tenants/:tenantId/keys')
@ApiParam({ name: 'tenantId', description: 'Tenant id' })
export class AdminKeysController {
  constructor(private readonly admin: TenantAdmin) {}

  @Post()
  @AdminRoute({ jsonBody: true })
  @ApiOperation({
    summary: 'Create an API key',
    description:
      'Generates a public (public_key_svc_*, ingestion and metadata) or secret (secret_key_svc_*, full access) key. The key is in this response only: the service stores its SHA-256. ' +
      'allowedOrigins restricts browser use: a request whose Origin header is not listed is refused (requests without Origin are not affected).',
  })
  @ApiBody({ schema: openApiBody(createKeySchema) })
  @ApiResponse({ status: 201, description: 'The key (shown once) and its handle', schema: createdKeySchema })
  @ApiResponse({ status: 400, description: 'Invalid body (JSON {error, message, issues})' })
  async create(@Param('tenantId') rawTenant: string, @Req() req: FastifyRequest) {
    const tenantId = parseWith(tenantIdSchema, rawTenant, 'tenantId');
    return this.admin.createKey(tenantId, parseWith(createKeySchema, jsonBody(req, ADMIN_MAX_BODY_BYTES), 'body'));
  }

  @Get()
  @AdminRoute()
  @ApiOperation({ summary: "List a tenant's API keys", description: 'Handles, kinds and origins only; never the keys.' })
  @ApiResponse({ status: 200, schema: keyListSchema })
  list(@Param('tenantId') rawTenant: string) {
    return { keys: this.admin.listKeys(parseWith(tenantIdSchema, rawTenant, 'tenantId')) };
  }

  @Delete(':handle')
  @HttpCode(204)
  @AdminRoute()
  @ApiOperation({ summary: 'Revoke an API key', description: 'By handle (never put a key in a URL). Every instance refuses the key within about a second.' })
  @ApiParam({ name: 'handle', description: 'Key handle from the listing (16 hex digits)' })
  @ApiResponse({ status: 204, description: 'Revoked' })
  async revoke(@Param('tenantId') rawTenant: string, @Param('handle') rawHandle: string) {
    const tenantId = parseWith(tenantIdSchema, rawTenant, 'tenantId');
    await this.admin.revokeKey(tenantId, parseWith(keyHandleSchema, rawHandle, 'handle'));
  }
}
