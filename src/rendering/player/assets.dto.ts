// The player assets route's contract. The route reads its path and query itself: an unknown name is a
// 404 (text/plain) as for any missing file, not a validation failure, so these schemas only document.
import { z } from 'zod';
import { PLAYER_ASSET_NAMES } from './player-assets';

export const AssetParamsSchema = z.object({ name: z.enum(PLAYER_ASSET_NAMES) });
export const AssetQuerySchema = z.object({ v: z.string().optional().describe('Asset version (from the player page)') });

/** rrweb-player's script or stylesheet. */
export const AssetBody = z.string();
