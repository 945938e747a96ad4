import { BarState, endMessage, liveBarView } from './live-bar';

const following: BarState = { following: true, connected: true, sessionLive: true, shown: true, playing: true, behindText: '0.4 s behind', heard: true };

describe('liveBarView', () => {
  it('follows: a red LIVE and how far behind', () => {
    expect(liveBarView(following)).toEqual({ badge: 'LIVE', cls: 'following', text: '0.4 s behind', said: 'Following live' });
  });

  it('paused or playing back: a grey LIVE, how far behind, and which', () => {
    expect(liveBarView({ ...following, following: false, playing: false, behindText: '12 s behind' })).toEqual({
      badge: 'LIVE',
      cls: 'behind',
      text: '12 s behind · paused',
      said: 'Paused',
    });
    expect(liveBarView({ ...following, following: false, behindText: '10 s behind', sessionLive: false })).toEqual({
      badge: 'LIVE',
      cls: 'behind',
      text: '10 s behind · session ended',
      said: 'Playing back, behind live',
    });
  });

  it('says Session ended at the live edge of an idle recording', () => {
    expect(liveBarView({ ...following, sessionLive: false })).toEqual({ badge: 'ENDED', cls: 'ended', text: 'Session ended', said: 'Session ended' });
  });

  it('connecting, reconnecting, refused and waiting, and waiting for the first page', () => {
    const off = { ...following, connected: false };
    expect(liveBarView({ ...off, heard: false, shown: false }).text).toBe('Connecting…');
    expect(liveBarView(off)).toMatchObject({ cls: 'behind', text: 'Reconnecting…', said: 'Reconnecting' });
    expect(liveBarView({ ...off, retry: { what: 'Too many live viewers', inMs: 9001 } })).toMatchObject({
      text: 'Too many live viewers: trying again in 10 s',
      said: 'Too many live viewers',
    });
    expect(liveBarView({ ...off, retry: { what: 'Too many live viewers', inMs: -5 } }).text).toBe('Too many live viewers: trying again…');
    expect(liveBarView({ ...following, shown: false })).toMatchObject({ text: 'Waiting for the recorded page…', said: 'Waiting for the recorded page' });
  });

  it('an ended feed says why, whatever else is true', () => {
    expect(liveBarView({ ...following, connected: false, ended: 'deleted' })).toEqual({
      badge: 'OFFLINE',
      cls: 'closed',
      text: 'This recording was deleted.',
      said: 'This recording was deleted.',
    });
  });
});

describe('endMessage', () => {
  it.each([
    ['deleted', 'This recording was deleted.'],
    ['link_expired', 'The link expired: reload the page to keep watching.'],
    ['slow_viewer', 'The live view fell too far behind and was stopped: reload the page to follow again.'],
    ['refused:403', 'The link is no longer valid: reload the page.'],
    ['refused:404', 'This recording no longer exists.'],
    ['refused:400', 'The live feed could not be opened (HTTP 400).'],
    ['something_new', 'The live view ended.'],
  ])('%s → %s', (reason, text) => {
    expect(endMessage(reason)).toBe(text);
  });
});
