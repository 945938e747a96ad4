// Which rrweb plugins the browser recorder runs for its options, and that their events pass the bounds
// (the console plugin driven over a stand-in window; the real browser is test/e2e/recorder-capture).
import type { IWindow, NetworkRecordOptions, NetworkRequest, RecordPlugin } from '@rrweb/types';
import { CONSOLE_LIMITS } from './browser/capture-bounds';
import { capturePlugins } from './browser/capture-plugins';

const SERVER = 'https://tapedeck.example.com/base';
const names = (plugins: RecordPlugin[]) => plugins.map((p) => p.name);
const networkOptions = (plugins: RecordPlugin[]) => plugins.find((p) => p.name === 'rrweb/network@1')!.options as NetworkRecordOptions;
const request = (name: string): NetworkRequest => ({ name, method: 'GET' }) as NetworkRequest;

describe('capturePlugins', () => {
  it('records the console by default and the network only when asked', () => {
    expect(names(capturePlugins({}, SERVER))).toEqual(['rrweb/console@1']);
    expect(names(capturePlugins({ console: false }, SERVER))).toEqual([]);
    expect(names(capturePlugins({ network: true }, SERVER))).toEqual(['rrweb/console@1', 'rrweb/network@1']);
    expect(names(capturePlugins({ console: false, network: {} }, SERVER))).toEqual(['rrweb/network@1']);
  });

  it('asks rrweb for fetch and XHR with no headers and no bodies, unless told otherwise', () => {
    expect(networkOptions(capturePlugins({ network: true }, SERVER))).toMatchObject({
      initiatorTypes: ['fetch', 'xmlhttprequest'],
      recordHeaders: { request: false, response: false },
      recordBody: false,
    });
    expect(
      networkOptions(capturePlugins({ network: { recordHeaders: true, recordBody: ['application/json'], initiatorTypes: ['img'] } }, SERVER)),
    ).toMatchObject({
      initiatorTypes: ['img'],
      recordHeaders: true,
      recordBody: ['application/json'],
    });
  });

  it("leaves out the recorder's own requests, and requests the page's transform drops or throws on", () => {
    const transform = (r: NetworkRequest) => {
      if (r.name.includes('secret')) throw new Error('no');
      return r.name.includes('drop') ? undefined : { ...r, name: r.name.replace(/\?.*/, '') };
    };
    const { transformRequestFn: plain } = networkOptions(capturePlugins({ network: true }, SERVER));
    const { transformRequestFn: custom } = networkOptions(capturePlugins({ network: { transformRequestFn: transform } }, SERVER));
    expect(plain!(request(`${SERVER}/recordings/r1/events`))).toBeUndefined();
    expect(plain!(request('https://tapedeck.example.com/other/recordings/x'))).toEqual(request('https://tapedeck.example.com/other/recordings/x'));
    expect(custom!(request(`${SERVER}/recordings/r1/events`))).toBeUndefined();
    expect(custom!(request('https://api.example.com/a?token=1'))).toEqual(request('https://api.example.com/a'));
    expect(custom!(request('https://api.example.com/drop'))).toBeUndefined();
    expect(custom!(request('https://api.example.com/secret'))).toBeUndefined();
  });

  it("lets a plugin of the page's own with the same name replace ours", () => {
    const own: RecordPlugin = { name: 'rrweb/console@1', options: {} };
    expect(names(capturePlugins({ network: true }, SERVER, [own]))).toEqual(['rrweb/network@1']);
  });

  it('passes console events through the bounds, and restores the console when stopped', () => {
    // The plugin's stringify asks whether an argument is a DOM node: Node has no such classes.
    const g = globalThis as Record<string, unknown>;
    g.Node ??= class {};
    g.HTMLElement ??= class {};
    const recorded: unknown[] = [];
    const original = jest.fn();
    const fakeConsole = { log: original, error: jest.fn() };
    const win = { console: fakeConsole, addEventListener: jest.fn(), removeEventListener: jest.fn() } as unknown as IWindow;
    const [plugin] = capturePlugins({ console: { levels: ['log'] } }, SERVER);
    const stop = plugin.observer!((payload) => recorded.push(payload), win, plugin.options);
    fakeConsole.log('x'.repeat(5000), 2);
    expect(original).toHaveBeenCalledWith('x'.repeat(5000), 2); // the page's console still gets it all
    expect(recorded).toEqual([{ level: 'log', trace: expect.any(Array), payload: [JSON.stringify('x'.repeat(CONSOLE_LIMITS.argumentLength) + '…'), '2'] }]);
    // Only 'error' among the levels listens for uncaught errors.
    expect(win.addEventListener).not.toHaveBeenCalled();
    stop();
    expect(fakeConsole.log).toBe(original);
  });
});
