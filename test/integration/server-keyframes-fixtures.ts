// A page recorded by rrweb without any checkout (one FullSnapshot at its start, as rrweb's official
// browser client records by default), for the server-made keyframe specs.
import type { Page } from 'playwright-core';
import type { RrwebEvent } from '../../src/domain/rrweb-event';
import { fixtureHtml, RECORD_UMD } from './rendering-fixtures';

/** Records the fixture page without checkouts while inputs, style changes, added and removed nodes and scrolls happen. */
export async function recordWithoutCheckouts(page: Page): Promise<RrwebEvent[]> {
  await page.setContent(
    fixtureHtml('data:,') +
      '<div id="box" style="height:120px;overflow:auto"><div style="height:600px;background:linear-gradient(#fc0,#08c)">inner</div></div>' +
      '<div style="height:1400px;background:linear-gradient(#fff,#38c)">tall</div>',
  );
  await page.addScriptTag({ content: RECORD_UMD });
  await page.evaluate(() => {
    const w = window as unknown as { __events: unknown[]; rrwebRecord: { record: (o: object) => void } };
    w.__events = [];
    w.rrwebRecord.record({ emit: (e: unknown) => w.__events.push(e) });
  });
  const pause = () => page.waitForTimeout(450);
  const steps: (() => Promise<unknown>)[] = [
    () => page.fill('#name', 'Ada'),
    () => page.click('#toggle'),
    () => page.click('#add'),
    () => page.click('#add'),
    () => page.evaluate(() => window.scrollTo(0, 260)),
    () => page.evaluate(() => (document.querySelector('#box') as HTMLElement).scrollTo(0, 200)),
    () => page.fill('#name', 'Ada Lovelace'),
    () => page.evaluate(() => document.querySelector('.card:nth-child(2)')!.remove()),
    () => page.evaluate(() => ((document.querySelector('header') as HTMLElement).style.background = '#a02040')),
    () => page.evaluate(() => window.scrollTo(0, 120)),
    () => page.click('#add'),
    () => page.evaluate(() => document.querySelector('#list li')!.remove()),
    () => page.click('#toggle'),
  ];
  for (const step of steps) {
    await step();
    await pause();
  }
  await page.mouse.move(5, 5);
  return page.evaluate(() => JSON.parse(JSON.stringify((window as unknown as { __events: unknown[] }).__events)) as RrwebEvent[]);
}
