import { Controller, Get, Param, Patch, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { jsonBody } from '../common/request-body';
import { parseWith } from '../common/validation';
import { ADMIN_MAX_BODY_BYTES, AdminRoute } from './admin-route.decorator';
import { tenantListSchema, tenantSchema } from './admin-responses.schemas';
import { createTenantSchema, openApiBody, tenantIdSchema, updateTenantSchema } from './admin.schemas';
import { TenantAdmin } from './tenant-admin.service';

@ApiTags('admin')
@Controller('admin/tenants')
export class AdminTenantsController {
  constructor(private readonly admin: TenantAdmin) {}

  @Post()
  @AdminRoute({ jsonBody: true })
  @ApiOperation({ summary: 'Create a tenant', description: 'Idempotent: creating an existing tenant changes nothing and answers 200 with the stored tenant.' })
  @ApiBody({ schema: openApiBody(createTenantSchema) })
  @ApiResponse({ status: 201, description: 'Created', schema: tenantSchema })
  @ApiResponse({ status: 200, description: 'Already existed (unchanged)', schema: tenantSchema })
  @ApiResponse({ status: 400, description: 'Invalid body (JSON {error, message, issues})' })
  async create(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    const input = parseWith(createTenantSchema, jsonBody(req, ADMIN_MAX_BODY_BYTES), 'body');
    const { tenant, created } = await this.admin.createTenant(input);
    return reply.status(created ? 201 : 200).send(tenant);
  }

  @Patch(':tenantId')
  @AdminRoute({ jsonBody: true })
  @ApiOperation({
    summary: "Change a tenant's retention",
    description:
      'retentionDays (1-36500) sets how long recordings are kept after the service last stored events or metadata for them (server time, not event timestamps); 0 or null removes the period (recordings are kept until deleted). ' +
      'The retention sweep of every projector sees the change within moments, without a restart.',
  })
  @ApiParam({ name: 'tenantId', description: 'Tenant id' })
  @ApiBody({ schema: openApiBody(updateTenantSchema) })
  @ApiResponse({ status: 200, description: 'The updated tenant', schema: tenantSchema })
  @ApiResponse({ status: 400, description: 'Invalid body (JSON {error, message, issues})' })
  async update(@Param('tenantId') rawTenant: string, @Req() req: FastifyRequest) {
    const tenantId = parseWith(tenantIdSchema, rawTenant, 'tenantId');
    return this.admin.updateTenant(tenantId, parseWith(updateTenantSchema, jsonBody(req, ADMIN_MAX_BODY_BYTES), 'body'));
  }

  @Get()
  @AdminRoute()
  @ApiOperation({ summary: 'List tenants' })
  @ApiResponse({ status: 200, schema: tenantListSchema })
  list() {
    return { tenants: this.admin.listTenants() };
  }
}
