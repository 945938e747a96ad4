import { AppError } from '../../common/app-error';
import type { RecordingRenderSource } from '../shared/recording-render-source';
import type { ScreenshotRenderer, ScreenshotRequest } from './screenshot-renderer';
import { ScreenshotService, screenshotMaxAge } from './screenshot.service';

const RID = '0b0e7f2c-1d2e-4f60-8a9b-0c1d2e3f4a5b';

function service() {
  const requests: ScreenshotRequest[] = [];
  let resolved = 0;
  const renderer = {
    render: async (r: ScreenshotRequest) => {
      requests.push(r);
      const contentType = `image/${r.format}`;
      return { bytes: Buffer.from('img'), contentType, etag: '"abc"', width: 1, height: 1 };
    },
  } as unknown as ScreenshotRenderer;
  const source = {
    resolve: async () => {
      resolved++;
      return { contentKey: 't/r/7', events: async () => [] };
    },
  } as unknown as RecordingRenderSource;
  return { svc: new ScreenshotService(renderer, source), requests, resolvedCount: () => resolved };
}

describe('ScreenshotService', () => {
  it('validates the query before looking the recording up', async () => {
    const { svc, resolvedCount } = service();
    await expect(svc.respond({ tenantId: 't', recordingId: RID, query: { width: '0' } })).rejects.toMatchObject({ message: expect.stringMatching(/width/) });
    await expect(svc.respond({ tenantId: 't', recordingId: RID, query: { time: 'soon' } })).rejects.toBeInstanceOf(AppError);
    expect(resolvedCount()).toBe(0);
  });

  it('passes the negotiated format, size, quality and time to the renderer; ignores other parameters', async () => {
    const { svc, requests } = service();
    const res = await svc.respond({
      tenantId: 't',
      recordingId: RID,
      accept: 'image/webp',
      query: { height: '300', quality: '50', time: 'percent:10', foo: 'x' },
    });
    expect(requests[0]).toMatchObject({
      tenantId: 't',
      contentKey: 't/r/7',
      format: 'webp',
      height: 300,
      width: undefined,
      quality: 50,
      time: { kind: 'percent', value: 10 },
    });
    expect(res.status).toBe(200);
    expect(res.headers).toMatchObject({ 'Content-Type': 'image/webp', ETag: '"abc"', 'Cache-Control': 'private, max-age=60', Vary: 'Accept' });
    expect(res.headers['Content-Disposition']).toBe(`inline; filename="${RID}.webp"`);
  });

  it('lets a viewer cache a screenshot fetched with a presigned link only until the link expires', async () => {
    const { svc } = service();
    const now = 1_700_000_000_000;
    const at = (linkExpires: number) => svc.respond({ tenantId: 't', recordingId: RID, query: {}, linkExpires, now }).then((r) => r.headers['Cache-Control']);
    expect(await at(now / 1000 + 3600)).toBe('private, max-age=60');
    expect(await at(now / 1000 + 20.9)).toBe('private, max-age=20');
    expect(await at(now / 1000 + 0.5)).toBe('private, max-age=0');
    expect(screenshotMaxAge(undefined, now)).toBe(60);
    expect(screenshotMaxAge(now / 1000 - 5, now)).toBe(0);
  });

  it('lets the extension win and sends no Vary then', async () => {
    const { svc, requests } = service();
    const res = await svc.respond({ tenantId: 't', recordingId: RID, extension: 'jpg', accept: 'image/png', query: {} });
    expect(requests[0].format).toBe('jpeg');
    expect(res.headers.Vary).toBeUndefined();
  });

  it('answers 304 without a body when If-None-Match matches', async () => {
    const { svc } = service();
    const res = await svc.respond({ tenantId: 't', recordingId: RID, ifNoneMatch: 'W/"abc"', query: {} });
    expect(res).toMatchObject({ status: 304, headers: { ETag: '"abc"' } });
    expect(res.body).toBeUndefined();
  });
});
