import { applyDecorators, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse } from '@nestjs/swagger';
import { AdminTokenGuard } from './admin-token.guard';

/** An admin API route: the admin token guard and its documented failures. */
export const AdminRoute = () =>
  applyDecorators(
    UseGuards(AdminTokenGuard),
    ApiBearerAuth(),
    ApiResponse({ status: 401, description: 'Missing or wrong admin token (Authorization: Bearer <TAPEDECK_ADMIN_TOKEN>), text/plain' }),
    ApiResponse({ status: 404, description: 'Unknown tenant or key, or the admin API is disabled (TAPEDECK_ADMIN_TOKEN unset), text/plain' }),
  );
