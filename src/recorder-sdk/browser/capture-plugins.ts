// What the recorder captures besides the DOM, through rrweb's own record plugins so that the events
// have the shapes every rrweb tool reads (type 6, `rrweb/console@1` and `rrweb/network@1`):
// - console messages, uncaught errors and unhandled rejections (the console plugin reports the last
//   two as `error`-level messages, "Uncaught …" and "Uncaught (in promise) …"), on by default;
// - network requests, opt-in: method, URL, status and timing, never headers or bodies unless asked for.
// Both are bounded (capture-bounds.ts) after the plugins and after the page's own transform.
import { getRecordConsolePlugin, type LogLevel } from '@rrweb/rrweb-plugin-console-record';
import { getRecordNetworkPlugin } from '@rrweb/rrweb-plugin-network-record';
import type { NetworkInitiatorType, NetworkRecordOptions, NetworkRequest, RecordPlugin } from '@rrweb/types';
import { ConsoleLimiter, type LogData, type NetworkData, NetworkLimiter } from './capture-bounds';

export interface ConsoleCaptureOptions {
  /** Console methods recorded; uncaught errors and rejections come with 'error'. */
  levels?: LogLevel[];
}

/** rrweb's network plugin options; headers and bodies stay off unless set here. */
export type NetworkCaptureOptions = Pick<NetworkRecordOptions, 'initiatorTypes' | 'recordHeaders' | 'recordBody' | 'transformRequestFn'>;

export interface CaptureOptions {
  /** Console messages and uncaught errors: on unless false. */
  console?: boolean | ConsoleCaptureOptions;
  /** Network requests: off unless true or options. */
  network?: boolean | NetworkCaptureOptions;
}

const CONSOLE_LEVELS: LogLevel[] = ['assert', 'error', 'warn', 'info', 'log', 'trace'];
const NETWORK_INITIATORS: NetworkInitiatorType[] = ['fetch', 'xmlhttprequest'];
/** Headers off for both directions, yet set: rrweb wraps fetch and XHR only when headers or bodies are asked for, and only its wrappers know a request's method (the timing entries it reads otherwise have none). */
const NO_HEADERS = { request: false, response: false };

/** The plugins for these options, other than those the page passes itself (same name). */
export function capturePlugins(options: CaptureOptions, serverUrl: string, pagePlugins: readonly RecordPlugin[] = []): RecordPlugin[] {
  const plugins: RecordPlugin[] = [];
  const has = (name: string) => pagePlugins.some((p) => p && p.name === name);
  if (options.console !== false) {
    const asked = typeof options.console === 'object' && options.console ? options.console.levels : undefined;
    const levels = Array.isArray(asked) ? asked : CONSOLE_LEVELS;
    // The plugin's own lifetime cap (lengthThreshold) would silence a long-lived page for good; ours is per minute.
    const plugin = getRecordConsolePlugin({ level: levels, lengthThreshold: Number.MAX_SAFE_INTEGER });
    const limiter = new ConsoleLimiter();
    if (!has(plugin.name)) plugins.push(bounded<LogData>(plugin, (data) => limiter.admit(data, Date.now())));
  }
  if (options.network) {
    const own = `${serverUrl}/recordings/`;
    const asked: NetworkCaptureOptions = typeof options.network === 'object' ? options.network : {};
    const initiatorTypes = Array.isArray(asked.initiatorTypes) ? asked.initiatorTypes : NETWORK_INITIATORS;
    const transform = asked.transformRequestFn;
    const plugin = getRecordNetworkPlugin({
      initiatorTypes,
      recordHeaders: asked.recordHeaders || NO_HEADERS,
      recordBody: asked.recordBody ?? false,
      // Our own uploads are not the page's traffic (and recording them would record the next upload).
      transformRequestFn: (request: NetworkRequest) =>
        String(request.name).startsWith(own) ? undefined : transform ? failClosed(transform, request) : request,
    });
    const limiter = new NetworkLimiter();
    if (!has(plugin.name)) plugins.push(bounded<NetworkData>(plugin, (data) => limiter.admit(data, Date.now())));
  }
  return plugins;
}

/** The page's transform; a request it throws on is left out rather than recorded untransformed. */
function failClosed(transform: (request: NetworkRequest) => NetworkRequest | undefined, request: NetworkRequest): NetworkRequest | undefined {
  try {
    return transform(request);
  } catch {
    return undefined;
  }
}

/** The plugin with `bound` between its observer and rrweb: what it returns is recorded, undefined is not. */
function bounded<T>(plugin: RecordPlugin, bound: (payload: T) => T | undefined): RecordPlugin {
  const observe = plugin.observer;
  if (!observe) return plugin;
  return {
    ...plugin,
    observer: (cb, win, options) =>
      observe(
        (payload) => {
          const kept = bound(payload as T);
          if (kept !== undefined) cb(kept);
        },
        win,
        options,
      ),
  };
}
