// Console sign-in and sign-out: a private key or the admin token exchanged for a session cookie
// (HttpOnly, SameSite=Strict, Secure over HTTPS); the key is never sent back nor kept by the browser.
import { Controller, Delete, Get, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConsoleSession, ConsoleSessions, cookieValue, CSRF_HEADER, SESSION_COOKIE } from '../auth/console-sessions';
import { bearerMatches, hashKey } from '../auth/key-material';
import { AppError } from '../common/app-error';
import { ApiJsonBodyLimits, ApiTextError, ApiValidationError } from '../common/openapi/api-responses';
import { jsonBody } from '../common/request-body';
import { parseWith } from '../common/validation';
import { APP_CONFIG, AppConfig } from '../config/config';
import { ConsoleSessionInfo, SESSION_MAX_BODY_BYTES, SignInBody } from './console.dto';

const info = (s: ConsoleSession): ConsoleSessionInfo => ({
  kind: s.kind,
  ...(s.kind === 'tenant' ? { tenantId: s.tenantId } : {}),
  csrf: s.csrf,
  expiresAt: s.expires,
});

function cookie(req: FastifyRequest, value: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${req.protocol === 'https' ? '; Secure' : ''}`;
}

@ApiTags('console')
@Controller('console/session')
export class ConsoleSessionController {
  private readonly adminHash?: string;

  constructor(
    private readonly sessions: ConsoleSessions,
    @Inject(APP_CONFIG) cfg: AppConfig,
  ) {
    this.adminHash = cfg.TAPEDECK_ADMIN_TOKEN ? hashKey(cfg.TAPEDECK_ADMIN_TOKEN) : undefined;
  }

  @Post()
  @ApiOperation({
    summary: 'Sign in to the console',
    description:
      'Exchanges a private key (or the admin token) for a console session: a td_session cookie (HttpOnly, SameSite=Strict, Max-Age CONSOLE_SESSION_TTL_SECONDS, Secure over HTTPS) that then authenticates ' +
      'the API routes a private key may use (or the admin API), for that tenant only. Changes made with the session must carry the answered csrf in X-Tapedeck-Csrf. See docs/console.md.',
  })
  @ApiBody({ type: SignInBody })
  @ApiJsonBodyLimits(SESSION_MAX_BODY_BYTES)
  @ApiResponse({ status: 200, description: 'Signed in; Set-Cookie carries the session', type: ConsoleSessionInfo.Output })
  @ApiValidationError('Not exactly one of key and adminToken, or unknown fields')
  @ApiTextError(401, 'Unknown or public key, or a wrong admin token', 'Invalid API key')
  @ApiTextError(403, 'The tenant is suspended or being deleted, or the request comes from another site (Origin, Sec-Fetch-Site)', 'Tenant acme is suspended: …')
  @ApiTextError(404, 'adminToken given while the admin API is disabled (TAPEDECK_ADMIN_TOKEN unset)', 'Not found (the admin API is disabled: …)')
  @HttpCode(200)
  async signIn(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<ConsoleSessionInfo> {
    // Another site must not sign a visitor in (to its own tenant, say): only the console's own page may.
    const origin = req.headers.origin;
    if (req.headers['sec-fetch-site'] === 'cross-site' || (origin !== undefined && origin !== `${req.protocol}://${req.host}`)) {
      throw new AppError('forbidden', 'Sign in from the console itself: this request comes from another site');
    }
    const body = parseWith(SignInBody.schema, jsonBody(req, SESSION_MAX_BODY_BYTES), 'body');
    let s: ConsoleSession;
    if (body.key !== undefined) {
      s = await this.sessions.signIn(body.key);
    } else {
      if (!this.adminHash) throw new AppError('not_found', 'Not found (the admin API is disabled: TAPEDECK_ADMIN_TOKEN is not set)');
      if (!bearerMatches(this.adminHash, `Bearer ${body.adminToken}`)) throw new AppError('unauthorized', 'Wrong admin token');
      s = await this.sessions.signInAdmin();
    }
    reply.header('set-cookie', cookie(req, s.id, Math.floor((s.expires - Date.now()) / 1000)));
    return info(s);
  }

  @Get()
  @ApiOperation({
    summary: 'The current console session',
    description: 'Who the td_session cookie signs in, its CSRF token and expiry. 401 without a live session.',
  })
  @ApiResponse({ status: 200, type: ConsoleSessionInfo.Output })
  @ApiTextError(401, 'No session cookie, or the session expired or ended', 'Not signed in')
  async current(@Req() req: FastifyRequest): Promise<ConsoleSessionInfo> {
    const s = await this.sessions.fromRequest(req.headers.cookie, 'GET', undefined);
    if (!s) throw new AppError('unauthorized', 'Not signed in');
    return info(s);
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({
    summary: 'Sign out of the console',
    description: `Ends the session at once and clears its cookie. Needs the session's CSRF token in ${CSRF_HEADER}; without a live session it only clears the cookie.`,
  })
  @ApiResponse({ status: 204, description: 'Signed out' })
  @ApiTextError(403, 'A live session, but no or a wrong CSRF token', 'A change made with a console session needs its CSRF token in x-tapedeck-csrf')
  async signOut(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    let s: ConsoleSession | undefined;
    try {
      s = await this.sessions.fromRequest(req.headers.cookie, 'DELETE', req.headers[CSRF_HEADER]);
    } catch (e) {
      if (!(e instanceof AppError && e.code === 'unauthorized')) throw e;
    }
    if (s) await this.sessions.signOut(s.id);
    if (cookieValue(req.headers.cookie, SESSION_COOKIE) !== undefined) reply.header('set-cookie', cookie(req, '', 0));
  }
}
