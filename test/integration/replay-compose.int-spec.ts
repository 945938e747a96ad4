// Records three real Chromium tabs with @rrweb/record (two page views each, interleaved in time),
// composes them with the production core, and plays the result in @rrweb/replay's Replayer: it must
// play to the end without errors and show each page view's own page when seeked into it.
import { dirname, join } from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';
import { EventType, ReadEvent, RrwebEvent } from '../../src/domain/rrweb-event';
import { splitPageViews } from '../../src/replays/page-view';
import { composeEventsInMemory, PAGE_VIEW_GAP_MS, planPageViews } from '../../src/replays/replay-composer';
import { pollUntil } from '../harness/poll-until';
import { playToEnd } from '../harness/replayer';

const RECORD_UMD = join(dirname(require.resolve('@rrweb/record')), 'record.umd.min.cjs');
const ORIGIN = 'http://tapedeck.test'; // served by page routing below, never fetched
const SPEED = 8;

jest.setTimeout(60_000);

/** Each page carries a marker naming its tab and page view, e.g. MARKER-B2. */
function pageHtml(marker: string): string {
  return `<!doctype html><html><head><title>${marker}</title></head><body>
<h1 id="marker">${marker}</h1>
<input id="name" autocomplete="off">
<button id="go" onclick="document.getElementById('out').textContent = 'clicked ${marker}'">Go</button>
<p id="out"></p>
</body></html>`;
}

interface Tab {
  id: string;
  page: Page;
  events: RrwebEvent[];
}

describe('replay composition in Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('plays three interleaved tabs page view by page view', async () => {
    const recording = await browser.newContext({ viewport: { width: 800, height: 600 } });
    await recording.route(`${ORIGIN}/**`, (route) =>
      route.fulfill({ contentType: 'text/html', body: pageHtml(`MARKER-${new URL(route.request().url()).pathname.slice(1)}`) }),
    );

    const tabs: Tab[] = [];
    for (const id of ['A', 'B', 'C']) {
      const tab: Tab = { id, page: await recording.newPage(), events: [] };
      await tab.page.exposeFunction('tapedeckEmit', (event: RrwebEvent) => tab.events.push(event));
      tabs.push(tab);
    }
    const [a, b, c] = tabs;

    /** Navigates a tab to page view n and starts recording it. */
    const open = async (tab: Tab, n: number) => {
      await tab.page.goto(`${ORIGIN}/${tab.id}${n}`);
      await tab.page.addScriptTag({ path: RECORD_UMD });
      await tab.page.evaluate(() => {
        const w = window as unknown as { rrwebRecord: { record(o: object): void }; tapedeckEmit(e: unknown): void };
        w.rrwebRecord.record({ emit: (event: unknown) => void w.tapedeckEmit(event) });
      });
    };
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms)); // spacing in time is the point here

    await open(a, 1);
    await pause(100);
    await open(b, 1);
    await a.page.click('#go');
    await b.page.fill('#name', 'hello');
    await open(c, 1);
    await c.page.click('#go');
    await pause(100);
    await open(a, 2);
    await a.page.type('#name', 'again');
    await b.page.click('#go');
    await open(b, 2);
    await c.page.type('#name', 'typed in C1');
    await open(c, 2);
    await a.page.click('#go');
    await b.page.type('#name', 'b2');
    await c.page.click('#go');

    // Events reach Node through the exposed binding; wait until every tab has gone quiet.
    let previous = -1;
    await pollUntil(
      async () => {
        const total = tabs.reduce((n, t) => n + t.events.length, 0);
        const quiet = total === previous;
        previous = total;
        return quiet;
      },
      (quiet) => quiet,
      5000,
      150,
    );
    await recording.close();

    const recordings = tabs.map((t) => ({
      recordingId: `tab-${t.id}`,
      events: [...t.events].sort((x, y) => x.timestamp - y.timestamp),
    }));
    for (const r of recordings) {
      expect(r.events.filter((e) => e.type === EventType.FullSnapshot)).toHaveLength(2);
    }
    const composed: ReadEvent[] = composeEventsInMemory(recordings);
    expect(composed).toHaveLength(recordings.reduce((n, r) => n + r.events.length, 0));
    expect(composed[0].timestamp).toBe(0);

    // Page views in the order they started: A1 B1 C1 A2 B2 C2, each followed by the gap.
    const plan = planPageViews(recordings.flatMap((r) => splitPageViews(r.recordingId, r.events)));
    const markers = composed.filter((e) => e.type === EventType.FullSnapshot).map((e) => /MARKER-(\w+)/.exec(JSON.stringify(e.data))?.[1]);
    expect(markers).toEqual(['A1', 'B1', 'C1', 'A2', 'B2', 'C2']);
    expect(plan.map((v) => `${v.recordingId}#${v.ordinal}`)).toEqual(['tab-A#0', 'tab-B#0', 'tab-C#0', 'tab-A#1', 'tab-B#1', 'tab-C#1']);
    for (let k = 1; k < plan.length; k++) {
      expect(plan[k].offset).toBe(plan[k - 1].offset + plan[k - 1].endTimestamp - plan[k - 1].startTimestamp + PAGE_VIEW_GAP_MS);
    }
    const duration = composed[composed.length - 1].timestamp;

    // Replay in a blank page: no network, scripts and styles injected.
    const viewing = await browser.newContext({ viewport: { width: 1000, height: 800 } });
    try {
      const player = await viewing.newPage();
      const problems: string[] = [];
      const warnings: string[] = [];
      player.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
      player.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()}`);
        if (message.type() === 'warning') warnings.push(message.text());
      });
      await player.setContent('<!doctype html><html><head></head><body><div id="root"></div></body></html>');
      const finishedAt = await playToEnd(player, composed, SPEED, 25_000);
      expect(finishedAt).toBeGreaterThanOrEqual(duration);

      // Seek into the gap after each page view (the Replayer applies events strictly before the seek
      // time): the iframe shows that page, with what was done in it.
      for (const v of plan) {
        const t = v.offset + v.endTimestamp - v.startTimestamp + PAGE_VIEW_GAP_MS / 2;
        const shown = await player.evaluate((time) => {
          const replayer = (window as unknown as { replayer: any }).replayer;
          replayer.pause(time);
          const doc: Document = replayer.iframe.contentDocument;
          return {
            marker: doc.querySelector('#marker')?.textContent,
            out: doc.querySelector('#out')?.textContent,
            typed: (doc.querySelector('#name') as HTMLInputElement | null)?.value,
          };
        }, t);
        const marker = `MARKER-${v.recordingId.slice(4)}${v.ordinal + 1}`;
        expect({ t, ...shown }).toMatchObject({ t, marker });
        if (['MARKER-A1', 'MARKER-B1', 'MARKER-C2'].includes(marker)) expect(shown.out).toBe(`clicked ${marker}`);
        if (marker === 'MARKER-A2') expect(shown.typed).toBe('again');
        if (marker === 'MARKER-C1') expect(shown.typed).toBe('typed in C1');
      }

      // Just before the second page view starts, the first one is still shown.
      const second = plan[1];
      const before = await player.evaluate((time) => {
        const replayer = (window as unknown as { replayer: any }).replayer;
        replayer.pause(time);
        return (replayer.iframe.contentDocument as Document).querySelector('#marker')?.textContent;
      }, second.offset - 1);
      expect(before).toBe('MARKER-A1');

      expect(problems).toEqual([]);
      expect(warnings.filter((w) => /not found|Node with id/i.test(w))).toEqual([]);
    } finally {
      await viewing.close();
    }
  });
});
