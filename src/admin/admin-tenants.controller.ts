import { Controller, Get, Param, Patch, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiValidationError } from '../common/openapi/api-responses';
import { adminBody, AdminRoute } from './admin-route.decorator';
import { CreateTenantBody, Tenant, TenantList, TenantParams, UpdateTenantBody } from './admin.dto';
import { TenantAdmin } from './tenant-admin.service';

@ApiTags('admin')
@Controller('admin/tenants')
export class AdminTenantsController {
  constructor(private readonly admin: TenantAdmin) {}

  @Post()
  @AdminRoute({ body: CreateTenantBody })
  @ApiOperation({ summary: 'Create a tenant', description: 'Idempotent: creating an existing tenant changes nothing and answers 200 with the stored tenant.' })
  @ApiResponse({ status: 201, description: 'Created', type: Tenant.Output })
  @ApiResponse({ status: 200, description: 'Already existed (unchanged)', type: Tenant.Output })
  @ApiValidationError('Invalid body (JSON {error, message, issues})')
  async create(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    const { tenant, created } = await this.admin.createTenant(adminBody(CreateTenantBody, req));
    return reply.status(created ? 201 : 200).send(tenant);
  }

  @Patch(':tenantId')
  @AdminRoute({ body: UpdateTenantBody })
  @ApiOperation({
    summary: "Change a tenant's retention",
    description:
      'retentionDays (1-36500) sets how long recordings are kept after the service last stored events or metadata for them (server time, not event timestamps); 0 or null removes the period (recordings are kept until deleted). ' +
      'The retention sweep of every projector sees the change within moments, without a restart.',
  })
  @ApiResponse({ status: 200, description: 'The updated tenant', type: Tenant.Output })
  @ApiValidationError('Invalid tenantId or body (JSON {error, message, issues})')
  update(@Param() { tenantId }: TenantParams, @Req() req: FastifyRequest): Promise<Tenant> {
    return this.admin.updateTenant(tenantId, adminBody(UpdateTenantBody, req));
  }

  @Get()
  @AdminRoute()
  @ApiOperation({ summary: 'List tenants' })
  @ApiResponse({ status: 200, type: TenantList.Output })
  list(): TenantList {
    return { tenants: this.admin.listTenants() };
  }
}
