// Resizes a captured PNG to the requested box and encodes it. Runs outside the browser slot.
// fit 'contain': the whole captured viewport stays visible; a box of another aspect ratio than the
// recording's gets white bars rather than losing part of the page (the default size already
// follows the ratio of the recording's window at that moment, so bars appear only when the caller
// asks for a different one).
import sharp from 'sharp';
import type { ImageFormat } from './image-format';

export interface EncodeOptions {
  format: ImageFormat;
  width: number;
  height: number;
  /** 1..100, JPEG and WebP only. */
  quality: number;
}

const WHITE = { r: 255, g: 255, b: 255, alpha: 1 };

export async function encodeImage(png: Buffer, o: EncodeOptions): Promise<Buffer> {
  const img = sharp(png).resize(o.width, o.height, { fit: 'contain', background: WHITE, kernel: 'lanczos3' }).flatten({ background: WHITE });
  switch (o.format) {
    case 'png':
      return img.png({ compressionLevel: 6, adaptiveFiltering: false }).toBuffer();
    case 'jpeg':
      return img.jpeg({ quality: o.quality, mozjpeg: false }).toBuffer();
    case 'webp':
      return img.webp({ quality: o.quality, effort: 2 }).toBuffer();
  }
}
