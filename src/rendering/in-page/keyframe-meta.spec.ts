import { keyframeMeta } from './keyframe-meta';

describe('keyframeMeta', () => {
  const events = [
    { type: 4, timestamp: 0, data: { href: 'https://a.test/', width: 800, height: 600 } },
    { type: 2, timestamp: 1, data: { node: { id: 1 }, initialOffset: { left: 0, top: 40 } } },
    { type: 3, timestamp: 100, data: { source: 4, width: 1024, height: 700 } },
    { type: 3, timestamp: 200, data: { source: 3, id: 1, x: 0, y: 300 } },
    { type: 4, timestamp: 300, data: { href: 'https://a.test/b', width: 1024, height: 700 } },
  ];

  it("gives the Meta of a moment: the last page's address, the window's last size and scroll", () => {
    expect(keyframeMeta(events, 50)).toEqual({ href: 'https://a.test/', width: 800, height: 600, scroll: { left: 0, top: 40 } });
    expect(keyframeMeta(events, 250)).toEqual({ href: 'https://a.test/', width: 1024, height: 700, scroll: { left: 0, top: 300 } });
    expect(keyframeMeta(events, 301)?.href).toBe('https://a.test/b');
  });

  it('gives nothing before the first Meta', () => {
    expect(keyframeMeta(events, 0)).toBeUndefined();
  });
});
