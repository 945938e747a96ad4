// Links of one recording, relative like rrweb Cloud's (`/recordings/{id}`), or absolute under
// PUBLIC_BASE_URL when it is set. With a presigned query (auth/link-signer.ts) the *Signed
// variants open the recording's detail, events, player and screenshots without other credentials:
// one signature covers every read resource of the recording (see auth/presign.ts).
import { pathSegment } from '../common/path-segment';

export interface RecordingLinks {
  self: string;
  events: string;
  player: string;
  screenshot: string;
  /** The poster thumbnail, rendered in the background (rendering/thumbnail): 404 until it exists. */
  thumbnail: string;
  selfSigned?: string;
  eventsSigned?: string;
  playerSigned?: string;
  screenshotSigned?: string;
  thumbnailSigned?: string;
}

export function recordingLinks(recordingId: string, baseUrl = '', presignedQuery?: string): RecordingLinks {
  const self = `${baseUrl.replace(/\/+$/, '')}/recordings/${pathSegment(recordingId)}`;
  const links: RecordingLinks = {
    self,
    events: `${self}/events`,
    player: `${self}/player.html`,
    screenshot: `${self}/screenshot.png`,
    thumbnail: `${self}/thumbnail`,
  };
  if (presignedQuery !== undefined) {
    links.selfSigned = `${links.self}?${presignedQuery}`;
    links.eventsSigned = `${links.events}?${presignedQuery}`;
    links.playerSigned = `${links.player}?${presignedQuery}`;
    links.screenshotSigned = `${links.screenshot}?${presignedQuery}`;
    links.thumbnailSigned = `${links.thumbnail}?${presignedQuery}`;
  }
  return links;
}
