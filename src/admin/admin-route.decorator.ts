import { applyDecorators, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse } from '@nestjs/swagger';
import { ApiJsonBodyLimits } from '../recordings/recordings-query.openapi';
import { AdminTokenGuard } from './admin-token.guard';

/** Largest JSON body of an admin request, decoded. */
export const ADMIN_MAX_BODY_BYTES = 64 * 1024;

/** An admin API route: the admin token guard and its documented failures (with a JSON body: its limits too). */
export const AdminRoute = (opts: { jsonBody?: boolean } = {}) =>
  applyDecorators(
    UseGuards(AdminTokenGuard),
    ApiBearerAuth(),
    ApiResponse({ status: 401, description: 'Missing or wrong admin token (Authorization: Bearer <TAPEDECK_ADMIN_TOKEN>), text/plain' }),
    ApiResponse({ status: 404, description: 'Unknown tenant or key, or the admin API is disabled (TAPEDECK_ADMIN_TOKEN unset), text/plain' }),
    ...(opts.jsonBody ? [ApiJsonBodyLimits(ADMIN_MAX_BODY_BYTES)] : []),
  );
