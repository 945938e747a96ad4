// GET /recordings/{id}/screenshot[.ext]: validates the query (400) before touching the event store,
// negotiates the format (extension, then Accept, then PNG), finds the recording (404) and renders
// it (422 outside its range, 503 over capacity). Conditional requests compare the strong ETag.
import { Injectable } from '@nestjs/common';
import { type ConditionalAnswer, conditionalGet } from '../../common/static-asset';
import { negotiateImageFormat } from './image-format';
import { RecordingRenderSource } from '../shared/recording-render-source';
import { parseScreenshotQuery } from './screenshot-params';
import { ScreenshotRenderer } from './screenshot-renderer';

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

export type ScreenshotResponse = ConditionalAnswer;

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
    const image = await this.renderer.render({
      tenantId: input.tenantId,
      contentKey: source.contentKey,
      events: source.events,
      around: source.around,
      format,
      ...query,
    });
    return conditionalGet(input.ifNoneMatch, image.etag, image.bytes, this.headers(input), {
      'Content-Type': image.contentType,
      'Content-Disposition': `inline; filename="${input.recordingId}.${EXTENSION_OF[image.contentType]}"`,
    });
  }

  private headers(input: ScreenshotRequestInput): Record<string, string> {
    return {
      'Cache-Control': `private, max-age=${screenshotMaxAge(input.linkExpires, input.now ?? Date.now())}`,
      // Without an extension the format depends on Accept.
      ...(input.extension ? {} : { Vary: 'Accept' }),
    };
  }
}
