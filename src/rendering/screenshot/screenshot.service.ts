// GET /recordings/{id}/screenshot[.ext]: validates the query (400) before touching the event store,
// negotiates the format (extension, then Accept, then PNG), finds the recording (404) and renders
// it (422 outside its range, 503 over capacity). Conditional requests compare the strong ETag.
import { Injectable } from '@nestjs/common';
import { negotiateImageFormat } from './image-format';
import { RecordingRenderSource } from '../shared/recording-render-source';
import { parseScreenshotQuery } from './screenshot-params';
import { RenderedImage, ScreenshotRenderer } from './screenshot-renderer';

export interface ScreenshotRequestInput {
  tenantId: string;
  recordingId: string;
  /** From the route: png, jpeg, jpg, webp; undefined for /screenshot. */
  extension?: string;
  accept?: string;
  ifNoneMatch?: string;
  query: unknown;
  /** When the request came with a presigned link: its expiry (UNIX seconds). */
  linkExpires?: number;
  /** Now, in milliseconds (tests). */
  now?: number;
}

/** How long a viewer may reuse a screenshot: a minute, but never past the expiry of the link that fetched it. */
export function screenshotMaxAge(linkExpires: number | undefined, nowMs: number): number {
  if (linkExpires === undefined) return 60;
  return Math.max(0, Math.min(60, Math.floor(linkExpires - nowMs / 1000)));
}

export interface ScreenshotResponse {
  status: 200 | 304;
  headers: Record<string, string>;
  body?: Buffer;
}

const EXTENSION_OF: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

@Injectable()
export class ScreenshotService {
  constructor(
    private readonly renderer: ScreenshotRenderer,
    private readonly source: RecordingRenderSource,
  ) {}

  async respond(input: ScreenshotRequestInput): Promise<ScreenshotResponse> {
    const query = parseScreenshotQuery(input.query);
    const { format } = negotiateImageFormat(input.extension, input.accept);
    const source = await this.source.resolve(input.tenantId, input.recordingId);
    const image = await this.renderer.render({ contentKey: source.contentKey, events: source.events, format, ...query });
    const headers = this.headers(image, input);
    if (etagMatches(input.ifNoneMatch, image.etag)) return { status: 304, headers };
    return {
      status: 200,
      headers: {
        ...headers,
        'Content-Type': image.contentType,
        'Content-Disposition': `inline; filename="${input.recordingId}.${EXTENSION_OF[image.contentType]}"`,
      },
      body: image.bytes,
    };
  }

  private headers(image: RenderedImage, input: ScreenshotRequestInput): Record<string, string> {
    return {
      ETag: image.etag,
      'Cache-Control': `private, max-age=${screenshotMaxAge(input.linkExpires, input.now ?? Date.now())}`,
      // Without an extension the format depends on Accept.
      ...(input.extension ? {} : { Vary: 'Accept' }),
    };
  }
}

/** If-None-Match: a list of entity tags (weak comparison, as RFC 9110 asks for this header) or `*`. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}
