import { behindText, ClockOffset } from './live-clock';

describe('behindText', () => {
  it.each([
    [-5, 'under 0.1 s behind'],
    [0, 'under 0.1 s behind'],
    [49, 'under 0.1 s behind'],
    [50, '0.1 s behind'],
    [400, '0.4 s behind'],
    [999, '1 s behind'],
    [1449, '1.4 s behind'],
    [2000, '2 s behind'],
    [9949, '9.9 s behind'],
    [9950, '10 s behind'],
    [59_499, '59 s behind'],
    [59_500, '1 min 0 s behind'],
    [65_000, '1 min 5 s behind'],
    [3_600_000, '1 h 0 min behind'],
    [3_725_000, '1 h 2 min behind'],
  ])('%p ms → %p', (ms, text) => {
    expect(behindText(ms)).toBe(text);
  });
});

describe('ClockOffset', () => {
  it('is 0 until a status message came', () => {
    expect(new ClockOffset().ms).toBe(0);
    expect(new ClockOffset().serverNow(1000)).toBe(1000);
  });

  it('keeps the largest recent estimate: transit time only makes one smaller', () => {
    const c = new ClockOffset();
    c.add(10_000, 7_000); // server 3 s ahead, 0 ms transit
    c.add(20_000, 17_400); // 400 ms transit
    expect(c.ms).toBe(3000);
    expect(c.serverNow(50_000)).toBe(53_000);
    c.add(Number.NaN, 1);
    expect(c.ms).toBe(3000);
  });

  it('forgets old estimates (the clocks may be set meanwhile)', () => {
    const c = new ClockOffset();
    c.add(10_000, 0);
    for (let i = 0; i < 5; i++) c.add(1000 * i, 1000 * i);
    expect(c.ms).toBe(0);
  });
});
