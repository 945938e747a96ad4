import { addLink, click, consoleLog, input, meta, mouseDown, move, network, recordingMeta, snapshot, T0, textChange } from './testing/activity-fixtures';
import { batchActivity } from './batch-activity';
import type { RrwebEvent } from '../rrweb-event';

const of = (...events: unknown[]) => batchActivity(events as RrwebEvent[]);

describe('batchActivity', () => {
  it('makes a page item of each Meta, titled from the full snapshot after it, marked a load after recording-meta', () => {
    const a = of(
      recordingMeta(T0),
      meta(T0 + 1, 'https://shop.test/checkout?step=2#pay'),
      snapshot(T0 + 2),
      meta(T0 + 300_000, 'https://shop.test/checkout?step=2#pay'),
      snapshot(T0 + 300_001, 'Later'),
    );
    expect(a.items).toEqual([
      { kind: 'page', ts: T0 + 1, url: 'https://shop.test/checkout?step=2#pay', path: '/checkout', title: 'Checkout', pageLoad: true },
      { kind: 'page', ts: T0 + 300_000, url: 'https://shop.test/checkout?step=2#pay', path: '/checkout', title: 'Later', pageLoad: false },
    ]);
    // The metadata event is no event of the recording: its time does not count.
    expect([a.minTs, a.maxTs]).toEqual([T0 + 1, T0 + 300_001]);
  });

  it('takes clicks (not mouse downs) with node and position, and labels clickable nodes of the snapshot and of added nodes', () => {
    const a = of(meta(T0, 'https://shop.test/'), snapshot(T0 + 1), mouseDown(T0 + 10, 7), click(T0 + 11, 11, 40.6, 50.2), addLink(T0 + 20));
    expect(a.items.filter((i) => i.kind === 'click')).toEqual([{ kind: 'click', ts: T0 + 11, nodeId: 11, x: 41, y: 50 }]);
    expect(a.nodes).toEqual(
      expect.arrayContaining([
        { nodeId: 7, tag: 'button', text: 'Pay now', selector: 'button#pay.btn.primary' },
        { nodeId: 8, tag: 'button', text: 'Pay now', selector: 'button#pay.btn.primary' },
        { nodeId: 11, tag: 'button', text: 'Pay now', selector: 'button#pay.btn.primary' },
        { nodeId: 12, tag: 'input', text: 'Email', selector: 'input' },
        { nodeId: 20, tag: 'a', text: 'Help', selector: 'a.nav' },
        { nodeId: 21, tag: 'a', text: 'Help', selector: 'a.nav' },
      ]),
    );
    // The plain div is not clickable: no label.
    expect(a.nodes.map((n) => n.nodeId).sort((x, y) => x - y)).toEqual([7, 8, 11, 12, 20, 21]);
  });

  it('takes console errors (not warnings) as messages, and failed requests (>= 400, or none for fetch/XHR)', () => {
    const a = of(
      consoleLog(T0, 'error', 'Uncaught Error: boom'),
      consoleLog(T0 + 1, 'warn', 'careful'),
      consoleLog(T0 + 2, 'error', 'failed', { code: 42 }),
      network(
        T0 + 3,
        { name: 'https://shop.test/api/ok', status: 200 },
        { name: 'https://shop.test/api/pay', method: 'post', status: 502, duration: 31.6 },
        { name: 'https://shop.test/api/offline' },
        { name: 'https://shop.test/logo.png', initiatorType: 'img' },
      ),
    );
    expect(a.items).toEqual([
      { kind: 'error', ts: T0, message: 'Uncaught Error: boom' },
      { kind: 'error', ts: T0 + 2, message: 'failed {"code":42}' },
      { kind: 'network', ts: T0 + 3, url: 'https://shop.test/api/pay', method: 'POST', status: 502, durationMs: 32 },
      { kind: 'network', ts: T0 + 3, url: 'https://shop.test/api/offline', method: 'GET', status: 0, durationMs: 10 },
    ]);
  });

  it("takes rrweb 1's console log events (IncrementalSource.Log) as the console plugin's", () => {
    const log = (level: string) => ({ type: 3, timestamp: T0, data: { source: 11, level, payload: ['"old boom"'], trace: [] } });
    expect(of(log('error'), log('info')).items).toEqual([{ kind: 'error', ts: T0, message: 'old boom' }]);
  });

  it('counts inputs, marks each interaction second and the next four active, and collects change times', () => {
    const a = of(move(T0 + 500), input(T0 + 2_100), textChange(T0 + 2_200), click(T0 + 9_999, 7), textChange(T0 + 2_200));
    expect(a.inputs).toBe(1);
    const s = T0 / 1000;
    expect(a.activeSeconds).toEqual([s, s + 1, s + 2, s + 3, s + 4, s + 5, s + 6, s + 9, s + 10, s + 11, s + 12, s + 13]);
    expect(a.changes).toEqual([T0 + 2_100, T0 + 2_200]);
  });

  it('survives malformed events', () => {
    const a = of(
      null,
      { type: 3, timestamp: T0 },
      { type: 2, timestamp: T0, data: { node: 'x' } },
      { type: 6, timestamp: T0, data: { plugin: 'rrweb/network@1', payload: { requests: [null, 7] } } },
    );
    expect(a.items).toEqual([]);
  });
});
