// OpenAPI helpers for error responses: application errors are text/plain; request-schema failures
// (bad limit, offset, booleans, dates) are JSON {error, message, issues}.
import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';

const text = (example: string) => ({ 'text/plain': { schema: { type: 'string' as const, example } } });

export const validationErrorSchema = {
  type: 'object' as const,
  required: ['error', 'message', 'issues'],
  properties: {
    error: { type: 'string' as const, example: 'validation_failed' },
    message: { type: 'string' as const, example: 'Invalid query: limit: must be at most 100' },
    issues: { type: 'array' as const, items: { type: 'object' as const, properties: { path: { type: 'string' as const }, message: { type: 'string' as const } } } },
  },
};

/** 400 with both bodies: text/plain for application checks, JSON for schema validation. */
export function ApiBadRequest(description: string, textExample: string) {
  return ApiResponse({ status: 400, description, content: { ...text(textExample), 'application/json': { schema: validationErrorSchema } } });
}

export function ApiTextError(status: number, description: string, example: string) {
  return applyDecorators(ApiResponse({ status, description, content: text(example) }));
}
