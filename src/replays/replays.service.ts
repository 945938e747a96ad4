// Replays: recordings that share a metadata value, composed into one stream (replay-composer.ts)
// read from JetStream. Group membership and merged metadata come from the ClickHouse projections.
import { Inject, Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { LinkSigner } from '../auth/link-signer';
import { badRequest, notFound } from '../common/app-error';
import { pathSegment } from '../common/path-segment';
import { jsonArrayStream, jsonObjectWithArray } from '../common/json-array-stream';
import { EVENT_STORE, ReadWindow, RecordingEventSource } from '../domain/event-store';
import { composeReplay } from './replay-composer';
import { ReplayGroup, ReplayGroupsRepository } from '../read-model/replay-groups.repository';
import type { MetadataFilter as MetadataMatch } from '../read-model/metadata-filter';
import type { ReplayList, ReplayListItem } from './replays.dto';

const replayPath = (prop: string, value: string) => `/replays/${pathSegment(prop)}/${pathSegment(value)}`;

@Injectable()
export class ReplaysService {
  constructor(
    private readonly groups: ReplayGroupsRepository,
    private readonly signer: LinkSigner,
    @Inject(EVENT_STORE) private readonly source: RecordingEventSource,
  ) {}

  private async members(tenantId: string, filters: MetadataMatch[]): Promise<ReplayGroup> {
    const group = await this.groups.group(tenantId, filters);
    if (group.recordingIds.length === 0) throw notFound('No recording matches this replay');
    return group;
  }

  /** `{"metadata":{…},"events":[…]}` (the events of `window` only, when given), streamed. */
  async replay(tenantId: string, filters: MetadataMatch[], signal?: AbortSignal, window?: ReadWindow): Promise<Readable> {
    const group = await this.members(tenantId, filters);
    const metadata = await this.groups.mergedMetadata(tenantId, group.filters);
    return jsonObjectWithArray({ metadata }, 'events', composeReplay(tenantId, group.recordingIds, this.source, signal, window));
  }

  /** The composed events alone (of `window` only, when given), streamed. */
  async events(tenantId: string, filters: MetadataMatch[], signal?: AbortSignal, window?: ReadWindow): Promise<Readable> {
    const group = await this.members(tenantId, filters);
    return jsonArrayStream(composeReplay(tenantId, group.recordingIds, this.source, signal, window));
  }

  async list(tenantId: string, groupingProp: string, limit: number, offset: number, signed: boolean): Promise<ReplayList> {
    // Links never open a grouping key with a slash (auth/authenticator.ts): none to hand out.
    if (signed && groupingProp.includes('/')) throw badRequest('includeSignedUrls: presigned links cannot open replays of a groupingProp that contains "/"');
    // Signed before the query: 400 without a signing key even for an empty page, as for recordings.
    const signing = signed ? this.signer.forTenant(tenantId) : undefined;
    const { rows, hasMore } = await this.groups.listGroups(tenantId, groupingProp, limit, offset);
    const base = this.signer.base;
    const replays: ReplayListItem[] = rows.map((r) => {
      const path = replayPath(groupingProp, r.value);
      const item: ReplayListItem = {
        groupingProp,
        replayValue: r.value,
        recordings: r.recordings,
        startedAt: r.startedAt,
        endedAt: r.endedAt,
        duration: Math.max(0, r.endedAt - r.startedAt),
        links: { self: base + path, events: `${base}${path}/events` },
      };
      if (signing) {
        const query = signing.query({ kind: 'replay', groupingProp, replayValue: r.value });
        item.links.selfSigned = `${base}${path}?${query}`;
        item.links.eventsSigned = `${base}${path}/events?${query}`;
        item.signedUrlsExpireAt = signing.expires;
      }
      return item;
    });
    return { replays, limit, offset, hasMore, ...(signing ? { signedUrlsExpireAt: signing.expires } : {}) };
  }
}
