import { Controller, Delete, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiValidationError } from '../common/openapi/api-responses';
import { adminBody, AdminRoute } from './admin-route.decorator';
import { CreatedSigningKey, CreateSigningKeyBody, SigningKeyList, SigningKeyParams, TenantParams } from './admin.dto';
import { TenantAdmin } from './tenant-admin.service';

@ApiTags('admin')
@Controller('admin/tenants/:tenantId/signing-keys')
export class AdminSigningKeysController {
  constructor(private readonly admin: TenantAdmin) {}

  @Post()
  @AdminRoute({ body: CreateSigningKeyBody })
  @ApiOperation({
    summary: 'Add a signing key for presigned links',
    description:
      'With secret: stores it (at least 16 characters); without: generates one and returns it in this response only. Repeating a request with the same secret changes nothing (200). ' +
      'An existing keyId with another secret is refused (409): rotate by adding a new keyId, moving signers to it, then revoking the old one. See docs/presigned-links.md.',
  })
  @ApiResponse({ status: 201, description: 'Created; secret present only when generated', type: CreatedSigningKey.Output })
  @ApiResponse({ status: 200, description: 'Already existed with this secret (unchanged; created false, no secret)', type: CreatedSigningKey.Output })
  @ApiValidationError('Invalid tenantId or body (JSON {error, message, issues})')
  @ApiResponse({ status: 409, description: 'keyId exists with another secret (text/plain)' })
  async create(@Param() { tenantId }: TenantParams, @Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    const r = await this.admin.createSigningKey(tenantId, adminBody(CreateSigningKeyBody, req));
    return reply.status(r.created ? 201 : 200).send(r);
  }

  @Get()
  @AdminRoute()
  @ApiOperation({ summary: "List a tenant's signing keys", description: 'Key ids only; never the secrets.' })
  @ApiResponse({ status: 200, type: SigningKeyList.Output })
  @ApiValidationError('Invalid tenantId')
  list(@Param() { tenantId }: TenantParams): SigningKeyList {
    return { signingKeys: this.admin.listSigningKeys(tenantId) };
  }

  @Delete(':keyId')
  @HttpCode(204)
  @AdminRoute()
  @ApiOperation({ summary: 'Revoke a signing key', description: 'Links signed with it stop working on every instance within about a second.' })
  @ApiResponse({ status: 204, description: 'Revoked' })
  @ApiValidationError('Invalid tenantId or keyId')
  async revoke(@Param() { tenantId, keyId }: SigningKeyParams): Promise<void> {
    await this.admin.revokeSigningKey(tenantId, keyId);
  }
}
