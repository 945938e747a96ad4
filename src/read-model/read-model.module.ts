// The read model: the ClickHouse projections as the API reads them (listing, detail, statistics,
// replays, keyframes, activity), with the deletion rule and metadata filters they share. Features import this module for
// the planner and repositories; ClickHouse itself comes from the global InfrastructureModule.
import { Module } from '@nestjs/common';
import { ActivityRepository } from './activity.repository';
import { KeyframeCandidatesRepository } from './keyframe-candidates.repository';
import { KeyframesRepository } from './keyframes.repository';
import { ListingPlanner } from './listing.planner';
import { RecordingsRepository } from './recordings.repository';
import { ReplayGroupsRepository } from './replay-groups.repository';
import { StatisticsRepository } from './statistics.repository';
import { StorageUsageRepository } from './storage-usage.repository';

const READ_MODEL = [
  ListingPlanner,
  RecordingsRepository,
  StatisticsRepository,
  ReplayGroupsRepository,
  StorageUsageRepository,
  KeyframesRepository,
  ActivityRepository,
  KeyframeCandidatesRepository,
];

@Module({ providers: READ_MODEL, exports: READ_MODEL })
export class ReadModelModule {}
