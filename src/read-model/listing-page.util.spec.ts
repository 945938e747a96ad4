import { ranksAfter } from './listing-page.util';

describe('ranksAfter', () => {
  it('orders by start descending, then id descending bytewise', () => {
    expect(ranksAfter({ recording_id: 'b', started_at: '1' }, { recording_id: 'a', started_at: '2' })).toBe(true);
    expect(ranksAfter({ recording_id: 'a', started_at: '2' }, { recording_id: 'b', started_at: '2' })).toBe(true);
    expect(ranksAfter({ recording_id: 'b', started_at: '2' }, { recording_id: 'a', started_at: '2' })).toBe(false);
    expect(ranksAfter({ recording_id: '\u{1F600}', started_at: '2' }, { recording_id: '\uFFFF', started_at: '2' })).toBe(false);
  });
});
