/** The listing's short activity summary of a recording (docs/activity.md). */
export interface ActivitySummary {
  /** Page views. */
  pages: number;
  clicks: number;
  /** Console errors and uncaught errors. */
  errors: number;
  /** Active time, ms. */
  activeTime: number;
}

export const NO_ACTIVITY: ActivitySummary = { pages: 0, clicks: 0, errors: 0, activeTime: 0 };
