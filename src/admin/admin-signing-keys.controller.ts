import { Controller, Delete, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { jsonBody } from '../common/request-body';
import { parseWith } from '../common/validation';
import { ADMIN_MAX_BODY_BYTES, AdminRoute } from './admin-route.decorator';
import { createdSigningKeySchema, signingKeyListSchema } from './admin-responses.schemas';
import { createSigningKeySchema, openApiBody, signingKeyIdSchema, tenantIdSchema } from './admin.schemas';
import { TenantAdmin } from './tenant-admin.service';

@ApiTags('admin')
@Controller('admin/tenants/:tenantId/signing-keys')
@ApiParam({ name: 'tenantId', description: 'Tenant id' })
export class AdminSigningKeysController {
  constructor(private readonly admin: TenantAdmin) {}

  @Post()
  @AdminRoute({ jsonBody: true })
  @ApiOperation({
    summary: 'Add a signing key for presigned links',
    description:
      'With secret: stores it (at least 16 characters); without: generates one and returns it in this response only. Repeating a request with the same secret changes nothing (200). ' +
      'An existing keyId with another secret is refused (409): rotate by adding a new keyId, moving signers to it, then revoking the old one. See docs/presigned-links.md.',
  })
  @ApiBody({ schema: openApiBody(createSigningKeySchema) })
  @ApiResponse({ status: 201, description: 'Created; secret present only when generated', schema: createdSigningKeySchema })
  @ApiResponse({ status: 200, description: 'Already existed with this secret (unchanged; created false, no secret)', schema: createdSigningKeySchema })
  @ApiResponse({ status: 400, description: 'Invalid body (JSON {error, message, issues})' })
  @ApiResponse({ status: 409, description: 'keyId exists with another secret (text/plain)' })
  async create(@Param('tenantId') rawTenant: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    const tenantId = parseWith(tenantIdSchema, rawTenant, 'tenantId');
    const r = await this.admin.createSigningKey(tenantId, parseWith(createSigningKeySchema, jsonBody(req, ADMIN_MAX_BODY_BYTES), 'body'));
    return reply.status(r.created ? 201 : 200).send(r);
  }

  @Get()
  @AdminRoute()
  @ApiOperation({ summary: "List a tenant's signing keys", description: 'Key ids only; never the secrets.' })
  @ApiResponse({ status: 200, schema: signingKeyListSchema })
  list(@Param('tenantId') rawTenant: string) {
    return { signingKeys: this.admin.listSigningKeys(parseWith(tenantIdSchema, rawTenant, 'tenantId')) };
  }

  @Delete(':keyId')
  @HttpCode(204)
  @AdminRoute()
  @ApiOperation({ summary: 'Revoke a signing key', description: 'Links signed with it stop working on every instance within about a second.' })
  @ApiParam({ name: 'keyId' })
  @ApiResponse({ status: 204, description: 'Revoked' })
  async revoke(@Param('tenantId') rawTenant: string, @Param('keyId') rawKeyId: string) {
    const tenantId = parseWith(tenantIdSchema, rawTenant, 'tenantId');
    await this.admin.revokeSigningKey(tenantId, parseWith(signingKeyIdSchema, rawKeyId, 'keyId'));
  }
}
