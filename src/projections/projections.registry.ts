import type { Projection } from './projection';
import { activityProjection } from './activity-projection';
import { recordingProjection } from './recording-projection';

/** Every projection this build runs; each gets its own durable consumer. */
export const PROJECTIONS: readonly Projection[] = [recordingProjection, activityProjection];
