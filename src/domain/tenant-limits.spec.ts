import { applyLimitChanges, defaultLimits, effectiveLimits } from './tenant-limits';

const defaults = defaultLimits({
  TENANT_INGEST_EVENTS_PER_SECOND: 5000,
  TENANT_INGEST_BYTES_PER_SECOND: 100,
  TENANT_WEBSOCKETS: 10,
  TENANT_READ_BYTES_PER_SECOND: 200,
  TENANT_STORED_BYTES: 300,
  TENANT_RENDERS: 4,
  TENANT_RENDERS_PER_SECOND: 3,
  TENANT_LIVE_VIEWERS: 5,
});

describe('tenant limits', () => {
  it("takes the tenant's own values over the defaults, 0 (unlimited) included", () => {
    expect(effectiveLimits(defaults, undefined)).toEqual(defaults);
    expect(effectiveLimits(defaults, { webSockets: 0, storedBytes: 7 })).toEqual({ ...defaults, webSockets: 0, storedBytes: 7 });
  });

  it('sets values, returns null ones to the default, keeps the rest, and drops an empty set', () => {
    const own = applyLimitChanges(undefined, { webSockets: 3, storedBytes: 0 });
    expect(own).toEqual({ webSockets: 3, storedBytes: 0 });
    expect(applyLimitChanges(own, { webSockets: null, readBytesPerSecond: 9 })).toEqual({ storedBytes: 0, readBytesPerSecond: 9 });
    expect(applyLimitChanges(own, { webSockets: null, storedBytes: null })).toBeUndefined();
  });
});
