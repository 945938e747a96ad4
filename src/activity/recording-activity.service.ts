// A recording's activity timeline from the activity projection (read-model/activity.repository.ts):
// the rules' results as time-ordered items with offsets. A recording the event store holds but the
// projections do not (yet) answers projected: false; one it does not hold is a 404.
import { Injectable } from '@nestjs/common';
import { ActivityRepository } from '../read-model/activity.repository';
import { RecordingEventsService } from '../recordings/recording-events.service';
import type { ActivityItemView, RecordingActivityView } from './recording-activity.dto';

const ORDER: Record<ActivityItemView['kind'], number> = { pageView: 0, click: 1, rageClick: 2, error: 3, networkFailure: 4 };

@Injectable()
export class RecordingActivityService {
  constructor(
    private readonly activity: ActivityRepository,
    private readonly events: RecordingEventsService,
  ) {}

  async timeline(tenantId: string, recordingId: string): Promise<RecordingActivityView> {
    const read = await this.activity.recording(tenantId, recordingId);
    if (!read) {
      await this.events.assertExists(tenantId, recordingId);
      return {
        recordingId,
        projected: false,
        startedAt: null,
        endedAt: null,
        summary: { pageViews: 0, clicks: 0, rageClicks: 0, deadClicks: 0, errors: 0, networkFailures: 0, inputs: 0, activeTime: 0, idleTime: 0 },
        errorMessages: [],
        items: [],
      };
    }
    const { activity: a, span } = read;
    const at = (ts: number) => ({ timestamp: ts, offset: ts - span.first });
    const items: ActivityItemView[] = [
      ...a.pageViews.map((p) => ({ kind: 'pageView' as const, ...at(p.ts), url: p.url, path: p.path, title: p.title, duration: p.durationMs })),
      ...a.clicks.map((c) => ({
        kind: 'click' as const,
        ...at(c.ts),
        x: c.x,
        y: c.y,
        nodeId: c.nodeId,
        text: c.text,
        selector: c.selector,
        rage: c.rage,
        dead: c.dead,
      })),
      ...a.rageClicks.map((r) => ({ kind: 'rageClick' as const, ...at(r.ts), clicks: r.clicks, nodeId: r.nodeId, text: r.text, selector: r.selector })),
      ...a.errors.map((e) => ({ kind: 'error' as const, ...at(e.ts), message: e.message })),
      ...a.networkFailures.map((n) => ({
        kind: 'networkFailure' as const,
        ...at(n.ts),
        url: n.url,
        method: n.method,
        status: n.status,
        duration: n.durationMs,
      })),
    ].sort((x, y) => x.timestamp - y.timestamp || ORDER[x.kind] - ORDER[y.kind]);
    const messages = new Map<string, number>();
    for (const e of a.errors) messages.set(e.message, (messages.get(e.message) ?? 0) + 1);
    return {
      recordingId,
      projected: true,
      startedAt: span.first,
      endedAt: span.last,
      summary: {
        pageViews: a.pageViews.length,
        clicks: a.clicks.length,
        rageClicks: a.rageClicks.length,
        deadClicks: a.clicks.filter((c) => c.dead).length,
        errors: a.errors.length,
        networkFailures: a.networkFailures.length,
        inputs: a.inputs,
        activeTime: a.activeTime,
        idleTime: a.idleTime,
      },
      errorMessages: [...messages].map(([message, count]) => ({ message, count })).sort((x, y) => y.count - x.count || (x.message < y.message ? -1 : 1)),
      items,
    };
  }
}
