// Recordings for the console's end-to-end spec and benchmark: two page views of a small styled
// document (title, heading, coloured panel), mouse moves every `stepMs` in between, so the player,
// the thumbnails and the activity timeline all have something to show. `trouble` adds, a second into the
// second page, three quick clicks on its button (a rage click; dead, as nothing changes) and a console error.
let ids = 100;

function el(tagName: string, attributes: Record<string, string>, childNodes: unknown[]) {
  return { type: 2, id: ids++, tagName, attributes, childNodes };
}
const text = (textContent: string) => ({ type: 3, id: ids++, textContent });

function snapshot(title: string, heading: string, color: string) {
  ids = 100;
  const body = el('body', { style: 'margin:0;font-family:sans-serif;background:#f4f6fb' }, [
    el('header', { style: `background:${color};color:#fff;padding:24px 32px;font-size:28px` }, [text(heading)]),
    el('main', { style: 'padding:24px 32px' }, [
      el('p', { style: 'font-size:18px' }, [text(`${title}: a page recorded for the console tests.`)]),
      el('button', { id: 'buy', style: `font-size:18px;padding:10px 20px;background:${color};color:#fff;border:0` }, [text('Buy now')]),
    ]),
  ]);
  return {
    node: {
      type: 0,
      id: 1,
      childNodes: [{ type: 1, id: 2, name: 'html', publicId: '', systemId: '' }, el('html', {}, [el('head', {}, [el('title', {}, [text(title)])]), body])],
    },
    initialOffset: { left: 0, top: 0 },
  };
}

export interface ConsoleRecordingOptions {
  start: number;
  durationMs: number;
  color: string;
  title: string;
  href?: string;
  width?: number;
  height?: number;
  stepMs?: number;
  trouble?: boolean;
}

/** The id of the node with this `id` attribute in a serialised tree. */
function nodeById(node: { id: number; attributes?: Record<string, string>; childNodes?: unknown[] }, id: string): number | undefined {
  if (node.attributes?.id === id) return node.id;
  for (const c of node.childNodes ?? []) {
    const found = nodeById(c as typeof node, id);
    if (found !== undefined) return found;
  }
  return undefined;
}

export function consoleRecording(o: ConsoleRecordingOptions) {
  const width = o.width ?? 1280;
  const height = o.height ?? 720;
  const href = o.href ?? 'https://shop.example/pricing';
  const half = o.start + Math.floor(o.durationMs / 2);
  const events: { type: number; timestamp: number; data: Record<string, unknown> }[] = [
    { type: 4, timestamp: o.start, data: { href, width, height } },
    { type: 2, timestamp: o.start + 1, data: snapshot(o.title, 'Pricing', o.color) },
  ];
  const step = o.stepMs ?? 500;
  for (let t = o.start + step; t < o.start + o.durationMs; t += step) {
    if (t >= half && t - step < half) {
      events.push({ type: 4, timestamp: half, data: { href: href.replace(/\/[^/]*$/, '/checkout'), width, height } });
      events.push({ type: 2, timestamp: half + 1, data: snapshot(`${o.title} checkout`, 'Checkout', o.color) });
    }
    const i = (t - o.start) / step;
    events.push({
      type: 3,
      timestamp: t,
      data: { source: 1, positions: [{ x: 40 + ((i * 37) % (width - 80)), y: 40 + ((i * 23) % (height - 80)), id: 1, timeOffset: 0 }] },
    });
  }
  events.push({ type: 3, timestamp: o.start + o.durationMs, data: { source: 2, type: 2, id: 1, x: 60, y: 150 } });
  if (o.trouble) {
    const checkout = events.filter((e) => e.type === 2).pop()!;
    const buy = nodeById((checkout.data as { node: Parameters<typeof nodeById>[0] }).node, 'buy')!;
    const at = half + 1000;
    for (let i = 0; i < 3; i++) events.push({ type: 3, timestamp: at + i * 150, data: { source: 2, type: 2, id: buy, x: 90, y: 120 } });
    events.push({ type: 6, timestamp: at + 500, data: { plugin: 'rrweb/console@1', payload: { level: 'error', payload: ['"card declined"'], trace: [] } } });
    events.sort((a, b) => a.timestamp - b.timestamp);
  }
  return events;
}
