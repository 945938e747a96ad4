import { Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiValidationError } from '../common/openapi/api-responses';
import { AdminRoute } from './admin-route.decorator';
import { Tenant, TenantParams } from './admin.dto';
import { TenantAdmin } from './tenant-admin.service';
import { TenantDeletionService } from './tenant-deletion.service';

const deleting = { status: 409, description: 'The tenant is being deleted (text/plain)' };

@ApiTags('admin')
@Controller('admin/tenants/:tenantId')
export class AdminTenantLifecycleController {
  constructor(
    private readonly admin: TenantAdmin,
    private readonly deletion: TenantDeletionService,
  ) {}

  @Get()
  @AdminRoute()
  @ApiOperation({ summary: 'Get a tenant', description: 'With its status; while it is being deleted, how far the deletion got (poll until 404).' })
  @ApiResponse({ status: 200, type: Tenant.Output })
  @ApiValidationError('Invalid tenantId')
  get(@Param() { tenantId }: TenantParams): Tenant {
    return this.admin.findTenant(tenantId) ?? this.deletion.inProgress(tenantId) ?? this.admin.getTenant(tenantId);
  }

  @Post('suspend')
  @HttpCode(200)
  @AdminRoute()
  @ApiOperation({
    summary: 'Suspend a tenant',
    description:
      'Every instance refuses its public and secret keys and its presigned links with 403 within about a second, ingestion included; its open ingestion WebSockets get an error frame (status 403) and are closed with 1008. ' +
      'Its data is kept (retention still applies). Suspending a suspended tenant changes nothing.',
  })
  @ApiResponse({ status: 200, description: 'The tenant, suspended', type: Tenant.Output })
  @ApiResponse(deleting)
  @ApiValidationError('Invalid tenantId')
  suspend(@Param() { tenantId }: TenantParams): Promise<Tenant> {
    return this.admin.suspend(tenantId);
  }

  @Post('resume')
  @HttpCode(200)
  @AdminRoute()
  @ApiOperation({
    summary: 'Resume a suspended tenant',
    description: 'Its keys and links work again on every instance within about a second. An active tenant: unchanged.',
  })
  @ApiResponse({ status: 200, description: 'The tenant, active', type: Tenant.Output })
  @ApiResponse(deleting)
  @ApiValidationError('Invalid tenantId')
  resume(@Param() { tenantId }: TenantParams): Promise<Tenant> {
    return this.admin.resume(tenantId);
  }

  @Delete()
  @HttpCode(202)
  @AdminRoute()
  @ApiOperation({
    summary: 'Delete a tenant and all of its data',
    description:
      'Refuses the tenant at once, as a suspension does, then deletes in the background every stream message of the tenant, its rows in every ClickHouse table, and its keys, signing keys and record. ' +
      'Answers 202 with the tenant (status deleting); GET /admin/tenants/{tenantId} shows the step reached (and, if a run stopped, why) and answers 404 once the deletion is complete. ' +
      'Deleting again resumes a deletion that was cut short. Irreversible.',
  })
  @ApiResponse({ status: 202, description: 'Refused; its data is being deleted', type: Tenant.Output })
  @ApiValidationError('Invalid tenantId')
  delete(@Param() { tenantId }: TenantParams): Promise<Tenant> {
    return this.deletion.start(tenantId);
  }
}
