import { sign } from '../auth/presign';
import { recordingLinks } from './recording-links';

const id = '550e8400-e29b-41d4-a716-446655440000';

describe('recordingLinks', () => {
  it('gives relative links like rrweb Cloud, without signed links by default', () => {
    expect(recordingLinks(id)).toEqual({
      self: `/recordings/${id}`,
      events: `/recordings/${id}/events`,
      player: `/recordings/${id}/player.html`,
      screenshot: `/recordings/${id}/screenshot.png`,
      thumbnail: `/recordings/${id}/thumbnail`,
    });
  });

  it('prefixes a public base URL and appends one presigned query to every signed link', () => {
    const q = `tenantId=t&expires=10&keyId=k&signature=${sign('secret-secret-secret', { kind: 'recording', recordingId: id }, 't', 10)}`;
    const links = recordingLinks(id, 'https://rec.example.com/', q);
    expect(links.self).toBe(`https://rec.example.com/recordings/${id}`);
    expect(links.eventsSigned).toBe(`https://rec.example.com/recordings/${id}/events?${q}`);
    expect(links.playerSigned).toBe(`https://rec.example.com/recordings/${id}/player.html?${q}`);
    expect(links.screenshotSigned).toBe(`https://rec.example.com/recordings/${id}/screenshot.png?${q}`);
    expect(links.thumbnailSigned).toBe(`https://rec.example.com/recordings/${id}/thumbnail?${q}`);
    expect(links.selfSigned).toBe(`https://rec.example.com/recordings/${id}?${q}`);
  });
});
