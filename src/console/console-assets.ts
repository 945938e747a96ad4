// The console's page and bundles, as scripts/build-sdk.mjs wrote them into dist/console-web/: read once,
// served from memory with strong ETags, the bundles brotli- or gzip-compressed for clients that take
// it. The page names each bundle with ?v=<its digest>, so a browser keeps them (immutable) until a new
// build changes the name.
import { Injectable } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../common/app-error';
import { type ConditionalAnswer, conditionalGet, negotiatedGet, StaticAsset, staticAsset } from '../common/static-asset';

// dist/console-web/, from dist/console/ once built or from src/console/ under ts-jest.
const DIR = join(__dirname, '..', '..', 'dist', 'console-web');
const TYPES: Record<string, string> = { 'console.js': 'text/javascript; charset=utf-8', 'console.css': 'text/css; charset=utf-8' };

/** The console page's CSP: its own script and styles only, images of this origin, frames of this origin (the player). */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; frame-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

@Injectable()
export class ConsoleAssets {
  private loaded?: { assets: Map<string, StaticAsset>; page: StaticAsset };

  respondPage(ifNoneMatch: string | undefined): ConditionalAnswer {
    const { page } = this.load();
    return conditionalGet(
      ifNoneMatch,
      page.etag,
      page.body,
      { 'Cache-Control': 'no-cache', 'Content-Security-Policy': CONSOLE_CSP },
      { 'Content-Type': page.contentType },
    );
  }

  respondAsset(name: string, version: string | undefined, ifNoneMatch: string | undefined, acceptEncoding?: string): ConditionalAnswer {
    const asset = this.load().assets.get(name);
    if (!asset) throw new AppError('not_found', 'Not found');
    const immutable = version !== undefined && version === tag(asset);
    return negotiatedGet(
      acceptEncoding,
      ifNoneMatch,
      asset,
      { 'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache' },
      { 'Content-Type': asset.contentType },
    );
  }

  private load(): { assets: Map<string, StaticAsset>; page: StaticAsset } {
    if (!this.loaded) {
      const assets = new Map<string, StaticAsset>();
      for (const [name, type] of Object.entries(TYPES)) {
        try {
          assets.set(name, staticAsset(readFileSync(join(DIR, name)), type));
        } catch {
          throw new AppError('unavailable', `The console is not built (${join(DIR, name)} is missing): run npm run build`, { retryAfterSeconds: 60 });
        }
      }
      this.loaded = { assets, page: staticAsset(Buffer.from(pageHtml(assets), 'utf8'), 'text/html; charset=utf-8') };
    }
    return this.loaded;
  }
}

const tag = (a: StaticAsset) => a.etag.slice(1, 13);

function pageHtml(assets: Map<string, StaticAsset>): string {
  const v = (name: string) => `/console/assets/${name}?v=${tag(assets.get(name)!)}`;
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">' +
    `<title>Tapedeck</title><link rel="icon" href="data:,"><link rel="stylesheet" href="${v('console.css')}">` +
    `<script src="${v('console.js')}" defer></script></head><body><div id="app"></div>` +
    '<noscript>The Tapedeck console needs JavaScript.</noscript></body></html>'
  );
}
