// The browser scripts the service hands out, read from disk once and kept in memory with a strong
// ETag: our recorder (dist/sdk/recorder.js and its source map) and rrweb's official script-tag client
// (@rrweb/browser-client's UMD build, unchanged, wrapped to accept rrweb Cloud's option spellings:
// official-client-wrapper.ts), served at /record.js as rrweb Cloud's API host does.
// A file that is missing is looked for again on the next request.
import { Inject, Injectable, Optional } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type StaticAsset, staticAsset } from '../common/static-asset';
import { wrapOfficialClient } from './official-client-wrapper';

export const SDK_ASSET_DIR = Symbol('SDK_ASSET_DIR');

export type SdkAssetName = 'recorder.js' | 'recorder.js.map' | 'record.js';

export type SdkAsset = StaticAsset;

const CONTENT_TYPES: Record<SdkAssetName, string> = {
  'recorder.js': 'application/javascript; charset=utf-8',
  'recorder.js.map': 'application/json; charset=utf-8',
  'record.js': 'application/javascript; charset=utf-8',
};

/** rrweb's official browser client, minified UMD (global `rrwebBrowserClient`; reads its script tag). */
function officialClientPath(): string {
  // The package exports only its entry points: dist/browser-client.cjs -> ../umd/browser-client.min.js
  return join(dirname(require.resolve('@rrweb/browser-client')), '..', 'umd', 'browser-client.min.js');
}

@Injectable()
export class SdkAssetService {
  private readonly dir: string;
  private readonly cache = new Map<SdkAssetName, SdkAsset>();

  constructor(@Optional() @Inject(SDK_ASSET_DIR) dir?: string) {
    // dist/recorder-sdk/ -> dist/sdk/
    this.dir = dir ?? join(__dirname, '..', 'sdk');
  }

  get(name: SdkAssetName): SdkAsset | null {
    const cached = this.cache.get(name);
    if (cached) return cached;
    let body: Buffer;
    try {
      body = name === 'record.js' ? wrapOfficialClient(readFileSync(officialClientPath())) : readFileSync(join(this.dir, name));
    } catch {
      return null;
    }
    const asset = staticAsset(body, CONTENT_TYPES[name]);
    this.cache.set(name, asset);
    return asset;
  }
}
