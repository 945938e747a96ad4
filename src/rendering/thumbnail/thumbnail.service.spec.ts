import { AppError } from '../../common/app-error';
import type { RecordingRenderSource } from '../shared/recording-render-source';
import type { ScreenshotRenderer } from '../screenshot/screenshot-renderer';
import { ThumbnailService } from './thumbnail.service';

function make(pool?: { inFlight: number; queueLength: number; whenIdle: () => Promise<void> }) {
  let seq = 1;
  let fail: AppError | undefined;
  const renders: string[] = [];
  /** Each render's `background`: thumbnails are not paced by the tenant's render rate. */
  const background: boolean[] = [];
  const source = {
    resolve: async (tenantId: string, recordingId: string) => {
      if (recordingId === 'gone') throw new AppError('not_found', 'Recording not found');
      return { contentKey: `${tenantId}/${recordingId}/${seq}`, events: async () => [], around: async () => ({ events: [] }) };
    },
  } as unknown as RecordingRenderSource;
  const renderer = {
    render: async (req: { contentKey: string; width?: number; format: string; background?: boolean }) => {
      renders.push(req.contentKey);
      background.push(req.background === true);
      if (fail) throw fail;
      return { bytes: Buffer.from(`img ${req.contentKey}`), etag: `"${req.contentKey}"`, contentType: 'image/webp', width: req.width, height: 180 };
    },
  } as unknown as ScreenshotRenderer;
  return {
    thumbnails: new ThumbnailService(source, renderer, pool as never),
    renders,
    background,
    next: () => seq++,
    failWith: (e: AppError | undefined) => (fail = e),
  };
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: AppError) => e.code,
  );

describe('ThumbnailService', () => {
  it('answers 404 at first, renders in the background once, then serves the image', async () => {
    const { thumbnails, renders } = make();
    const first = await Promise.all([codeOf(thumbnails.respond('t', 'r', undefined, 60)), codeOf(thumbnails.respond('t', 'r', undefined, 60))]);
    expect(first).toEqual(['not_found', 'not_found']);
    await thumbnails.drained();
    expect(renders).toEqual(['t/r/1']);
    const a = await thumbnails.respond('t', 'r', undefined, 60);
    expect(a.status).toBe(200);
    expect(a.headers['Content-Type']).toBe('image/webp');
    expect((await thumbnails.respond('t', 'r', a.headers.ETag, 60)).status).toBe(304);
  });

  it('keeps serving the older image of a changed recording until it has been quiet a minute', async () => {
    const { thumbnails, renders, next } = make();
    await codeOf(thumbnails.respond('t', 'r', undefined, 60));
    await thumbnails.drained();
    next();
    expect((await thumbnails.respond('t', 'r', undefined, 60, Date.now() + 1000)).body?.toString()).toBe('img t/r/1');
    await thumbnails.drained();
    expect(renders).toEqual(['t/r/1']);
    await thumbnails.respond('t', 'r', undefined, 60, Date.now() + 61_000);
    await thumbnails.drained();
    expect(renders).toEqual(['t/r/1', 't/r/2']);
    expect((await thumbnails.respond('t', 'r', undefined, 60)).body?.toString()).toBe('img t/r/2');
  });

  it('refuses a deleted recording at once, and remembers an unrenderable one (422) until it changes', async () => {
    const { thumbnails, failWith } = make();
    await expect(codeOf(thumbnails.respond('t', 'gone', undefined, 60))).resolves.toBe('not_found');
    failWith(new AppError('unprocessable', 'no html'));
    await codeOf(thumbnails.respond('t', 'bad', undefined, 60));
    await thumbnails.drained();
    await expect(codeOf(thumbnails.respond('t', 'bad', undefined, 60))).resolves.toBe('unprocessable');
  });

  it('forgets a tenant', async () => {
    const { thumbnails } = make();
    await codeOf(thumbnails.respond('t', 'r', undefined, 60));
    await thumbnails.drained();
    thumbnails.forgetTenant('t');
    await expect(codeOf(thumbnails.respond('t', 'r', undefined, 60))).resolves.toBe('not_found');
  });

  it('renders idle recordings after requests, and only while no other render runs or waits', async () => {
    let idle!: () => void;
    const pool = { inFlight: 1, queueLength: 0, whenIdle: () => new Promise<void>((r) => (idle = r)) };
    const { thumbnails, renders, background } = make(pool);
    await thumbnails.renderWhenIdle('t', 'idle');
    await thumbnails.renderWhenIdle('t', 'gone'); // deleted: skipped
    await new Promise((r) => setTimeout(r, 300));
    expect(renders).toEqual([]);
    // A request's thumbnail wakes the loop waiting for an idle pool and goes first.
    expect(await codeOf(thumbnails.respond('t', 'asked', undefined, 60))).toBe('not_found');
    await new Promise((r) => setTimeout(r, 50));
    expect(renders).toEqual(['t/asked/1']);
    await new Promise((r) => setTimeout(r, 300));
    expect(renders).toEqual(['t/asked/1']); // the pool is still busy
    pool.inFlight = 0;
    idle();
    await thumbnails.drained();
    expect(renders).toEqual(['t/asked/1', 't/idle/1']);
    expect(background).toEqual([true, true]);
    expect(thumbnails.renderedAt('t', 'idle')).toBeGreaterThan(0);
    expect((await thumbnails.respond('t', 'idle', undefined, 60)).status).toBe(200);
    await thumbnails.renderWhenIdle('t', 'idle'); // current already
    await thumbnails.drained();
    expect(renders).toHaveLength(2);
  });
});
