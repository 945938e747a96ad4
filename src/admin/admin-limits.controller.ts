import { Controller, Get, Param, Patch, Req } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiValidationError } from '../common/openapi/api-responses';
import { adminBody, AdminRoute } from './admin-route.decorator';
import { TenantParams } from './admin.dto';
import { TenantLimitsView, UpdateLimitsBody } from './limits.dto';
import { TenantLimitsAdmin } from './tenant-limits-admin.service';

@ApiTags('admin')
@Controller('admin/tenants/:tenantId/limits')
export class AdminLimitsController {
  constructor(private readonly limits: TenantLimitsAdmin) {}

  @Get()
  @AdminRoute()
  @ApiOperation({ summary: "A tenant's limits", description: "The limits in force, the tenant's own values and the configured defaults (docs/limits.md)." })
  @ApiResponse({ status: 200, type: TenantLimitsView.Output })
  @ApiValidationError('Invalid tenantId (JSON {error, message, issues})')
  get(@Param() { tenantId }: TenantParams): TenantLimitsView {
    return this.limits.view(tenantId);
  }

  @Patch()
  @AdminRoute({ body: UpdateLimitsBody })
  @ApiOperation({
    summary: "Change a tenant's limits",
    description:
      'Each named limit takes a whole number (0: unlimited) or null (back to the configured default); limits not named keep their value. Every instance applies the change within a second, without a restart.',
  })
  @ApiResponse({ status: 200, description: 'The limits after the change', type: TenantLimitsView.Output })
  @ApiValidationError('Invalid tenantId or body (JSON {error, message, issues})')
  async update(@Param() { tenantId }: TenantParams, @Req() req: FastifyRequest): Promise<TenantLimitsView> {
    return this.limits.update(tenantId, adminBody(UpdateLimitsBody, req));
  }
}
