// METRICS_TOKEN: when set, GET /metrics answers only `Authorization: Bearer <METRICS_TOKEN>` (401
// otherwise), and GET /readyz still answers its status code to every probe but gives its details
// (dependency details, projection lag, renderer) only with the token. Compared in constant time on
// SHA-256 digests; the token is never logged or repeated. Unset: both open, as before.
import { applyDecorators, Inject, Injectable } from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';
import { bearerMatches, hashKey } from '../auth/key-material';
import { AppError } from '../common/app-error';
import { ApiTextError } from '../common/openapi/api-responses';
import { APP_CONFIG, AppConfig } from '../config/config';

@Injectable()
export class MetricsToken {
  private readonly expectedHash?: string;

  constructor(@Inject(APP_CONFIG) cfg: Pick<AppConfig, 'METRICS_TOKEN'>) {
    this.expectedHash = cfg.METRICS_TOKEN ? hashKey(cfg.METRICS_TOKEN) : undefined;
  }

  /** Whether a request with this Authorization header may see metrics and readiness details. */
  admits(authorization: unknown): boolean {
    return this.expectedHash === undefined || bearerMatches(this.expectedHash, authorization);
  }

  /** Throws 401 unless the request may see metrics. */
  check(authorization: unknown): void {
    if (!this.admits(authorization)) throw new AppError('unauthorized', 'Missing or invalid metrics token: send Authorization: Bearer <METRICS_TOKEN>');
  }
}

/**
 * The token in /openapi.json: security scheme `metricsToken`, optional (`{}`) because it only applies
 * when the operator sets METRICS_TOKEN. `required`: /metrics answers 401 without it; `details`: the
 * route answers everyone, the token adds details.
 */
export const ApiMetricsToken = (kind: 'required' | 'details') =>
  applyDecorators(
    ApiSecurity('metricsToken'),
    ApiSecurity({}),
    ...(kind === 'required'
      ? [
          ApiTextError(
            401,
            'METRICS_TOKEN is set and the request does not carry it (text/plain)',
            'Missing or invalid metrics token: send Authorization: Bearer <METRICS_TOKEN>',
          ),
        ]
      : []),
  );
