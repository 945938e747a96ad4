import { applyDecorators, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiResponse } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { ZodDto } from 'nestjs-zod';
import type { z } from 'zod';
import { ApiJsonBodyLimits } from '../common/openapi/api-responses';
import { jsonBody } from '../common/request-body';
import { parseWith } from '../common/validation';
import { AdminTokenGuard } from './admin-token.guard';

/** Largest JSON body of an admin request, decoded. */
export const ADMIN_MAX_BODY_BYTES = 64 * 1024;

/** An admin API route: the admin token guard and its documented failures; with a JSON body, its schema and limits too. */
export const AdminRoute = (opts: { body?: ZodDto } = {}) =>
  applyDecorators(
    UseGuards(AdminTokenGuard),
    ApiBearerAuth(),
    ApiResponse({ status: 401, description: 'Missing or wrong admin token (Authorization: Bearer <TAPEDECK_ADMIN_TOKEN>), text/plain' }),
    ApiResponse({ status: 404, description: 'Unknown tenant or key, or the admin API is disabled (TAPEDECK_ADMIN_TOKEN unset), text/plain' }),
    ...(opts.body ? [ApiBody({ type: opts.body }), ApiJsonBodyLimits(ADMIN_MAX_BODY_BYTES)] : []),
  );

/** The request's JSON body as the route's body DTO (the one AdminRoute documents) reads it. */
export const adminBody = <T extends z.ZodType>(dto: ZodDto<T>, req: FastifyRequest): z.output<T> =>
  parseWith(dto.schema, jsonBody(req, ADMIN_MAX_BODY_BYTES), 'body');
