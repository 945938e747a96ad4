import { refill, takeLease } from './token-bucket';

const rate = { perSecond: 100, burst: 1000 };

describe('token bucket', () => {
  it('starts full and refills at the rate, never beyond the burst', () => {
    expect(refill(undefined, rate, 5000)).toEqual({ tokens: 1000, at: 5000 });
    expect(refill({ tokens: 0, at: 5000 }, rate, 6500)).toEqual({ tokens: 150, at: 6500 });
    expect(refill({ tokens: 990, at: 5000 }, rate, 9000)).toEqual({ tokens: 1000, at: 9000 });
  });

  it('adds nothing for a clock behind the last writer, and keeps the later time', () => {
    expect(refill({ tokens: 10, at: 5000 }, rate, 4000)).toEqual({ tokens: 10, at: 5000 });
  });

  it('grants what is wanted while there is enough, else what is there, never less than needed', () => {
    expect(takeLease(undefined, rate, 0, 10, 50)).toMatchObject({ granted: 50, state: { tokens: 950 } });
    expect(takeLease({ tokens: 30, at: 0 }, rate, 0, 10, 50)).toMatchObject({ granted: 30, state: { tokens: 0 } });
  });

  it('refuses when the need is not there, with the wait until it is', () => {
    const l = takeLease({ tokens: 5, at: 0 }, rate, 0, 25, 40);
    expect(l).toMatchObject({ granted: 0, state: { tokens: 5 } });
    expect(l.waitSeconds).toBeCloseTo(0.2);
  });

  it('passes a cost above the burst once the bucket is full, leaving it in debt', () => {
    expect(takeLease({ tokens: 999, at: 0 }, rate, 0, 5000, 5000)).toMatchObject({ granted: 0, waitSeconds: expect.closeTo(0.01) });
    const l = takeLease(undefined, rate, 0, 5000, 5000);
    expect(l).toMatchObject({ granted: 5000, state: { tokens: -4000 } });
    // The debt is paid by waiting: 40 s to be back at 0, then the burst's worth for the next big cost.
    expect(takeLease(l.state, rate, 0, 10, 10).waitSeconds).toBeCloseTo(40.1);
  });
});
