import { Module } from '@nestjs/common';
import { ReplayGroupsRepository } from '../read-model/replay-groups.repository';
import { ReplaysController } from './replays.controller';
import { ReplaysService } from './replays.service';

@Module({ controllers: [ReplaysController], providers: [ReplaysService, ReplayGroupsRepository] })
export class ReplaysModule {}
