import { captureScale } from './replay-page';

describe('captureScale', () => {
  it('rasterises at the scale the window is shown at in the image, from 1 to 4', () => {
    expect(captureScale({ width: 400, height: 60 }, { width: 1200, height: 180 })).toBe(3);
    // Fitted inside the box: the tighter side decides.
    expect(captureScale({ width: 900, height: 700 }, { width: 1800, height: 1000 })).toBeCloseTo(1000 / 700);
    expect(captureScale({ width: 100, height: 100 }, { width: 4096, height: 4096 })).toBe(4);
    // Smaller images are shrunk afterwards, from a capture at 1.
    expect(captureScale({ width: 1280, height: 720 }, { width: 640, height: 360 })).toBe(1);
    expect(captureScale({ width: 1280, height: 720 }, { width: 1280, height: 720 })).toBe(1);
  });
});
