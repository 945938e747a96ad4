// rrweb-player's browser bundle and stylesheet, read once from the installed package and served by
// AssetsController, brotli- or gzip-compressed for clients that take it. URLs carrying ?v=<version>
// are immutable; others revalidate by ETag.
import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { negotiatedGet, type StaticAsset, staticAsset } from '../../common/static-asset';

export interface AssetResponse {
  status: 200 | 304 | 404;
  headers: Record<string, string>;
  body?: Buffer;
}

const FILES = {
  'rrweb-player.js': { file: 'rrweb-player.umd.min.cjs', contentType: 'text/javascript; charset=utf-8' },
  'rrweb-player.css': { file: 'style.css', contentType: 'text/css; charset=utf-8' },
} satisfies Record<string, { file: string; contentType: string }>;

/** The names /assets/{name} serves. */
export const PLAYER_ASSET_NAMES = Object.keys(FILES) as (keyof typeof FILES)[];

@Injectable()
export class PlayerAssets {
  private assets?: Map<string, StaticAsset>;
  private hash?: string;

  /** Changes with the installed rrweb-player: use it as ?v= in asset URLs. */
  get version(): string {
    this.load();
    return this.hash!;
  }

  respond(name: string, ifNoneMatch?: string, v?: string, acceptEncoding?: string): AssetResponse {
    const asset = this.load().get(name);
    if (!asset) return { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: Buffer.from('Not found') };
    // Content-Type goes with a 304 too, as it always did here.
    return negotiatedGet(acceptEncoding, ifNoneMatch, asset, {
      'Content-Type': asset.contentType,
      'Cache-Control': v === this.hash ? 'public, max-age=31536000, immutable' : 'public, max-age=86400',
      'X-Content-Type-Options': 'nosniff',
      'Cross-Origin-Resource-Policy': 'same-origin',
    });
  }

  private load(): Map<string, StaticAsset> {
    if (this.assets) return this.assets;
    const dist = dirname(require.resolve('rrweb-player')); // .../rrweb-player/dist/rrweb-player.cjs
    const assets = new Map<string, StaticAsset>();
    const all = createHash('sha256');
    for (const [name, { file, contentType }] of Object.entries(FILES)) {
      // The source map is not served: drop the comment pointing at it.
      const text = readFileSync(join(dist, file), 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
      const asset = staticAsset(Buffer.from(text), contentType);
      all.update(asset.etag.slice(1, -1)); // the digest inside the quotes
      assets.set(name, asset);
    }
    this.hash = all.digest('base64url').slice(0, 12);
    this.assets = assets;
    return assets;
  }
}
