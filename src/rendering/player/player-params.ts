// The hosted player page's query as the page uses it: validated by its schema (player.dto.ts), the
// playback position read as a time selector.
import { z } from 'zod';
import { parseWith } from '../../common/validation';
import { parseTimeSelector, TimeSelector } from '../shared/time-selector';
import { playerQueryFor } from './player.dto';

/** eventsUrl is same-origin: returned as given when relative, as path+query+hash when absolute. */
export type PlayerQuery = Omit<z.output<ReturnType<typeof playerQueryFor>>, 'time'> & { time: TimeSelector };

/** `requestOrigin` (e.g. "https://tapedeck.example.com"): without it only relative URLs pass. */
export function parsePlayerQuery(query: unknown, requestOrigin?: string): PlayerQuery {
  const q = parseWith(playerQueryFor(requestOrigin), query ?? {}, 'player query');
  return { controls: q.controls, autoplay: q.autoplay, mode: q.mode, speed: q.speed, time: parseTimeSelector(q.time), eventsUrl: q.eventsUrl };
}
