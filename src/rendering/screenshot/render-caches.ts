// The screenshot renderer's caches, on lru-cache (a get() makes an entry the most recent).
// Encoded images: bounded by count and by total bytes; an image heavier than the bound is not kept.
// Warm replay pages: bounded by count; a page pushed out by the bound is closed unless a render is
// using it (that render closes it when done). A page taken out with delete() or clear() is the
// caller's to close.
import { LRUCache } from 'lru-cache';

export function imageCache<V extends { bytes: Buffer }>(maxImages: number, maxBytes: number): LRUCache<string, V> {
  return new LRUCache<string, V>({
    max: maxImages,
    maxSize: Math.max(1, maxBytes),
    // lru-cache takes positive sizes only: an empty image weighs one byte.
    sizeCalculation: (image) => Math.max(1, image.bytes.length),
  });
}

export function warmPageCache<P extends { busy: boolean; close(): Promise<void> }>(maxPages: number): LRUCache<string, P> {
  return new LRUCache<string, P>({
    // lru-cache needs a bound; with warming off (0) the renderer keeps no page in the first place.
    max: Math.max(1, maxPages),
    dispose: (page, _key, reason) => {
      if (reason === 'evict' && !page.busy) void page.close();
    },
  });
}
