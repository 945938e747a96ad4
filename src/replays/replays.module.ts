import { Module } from '@nestjs/common';
import { ReadModelModule } from '../read-model/read-model.module';
import { ReplaysController } from './replays.controller';
import { ReplaysService } from './replays.service';

@Module({ imports: [ReadModelModule], controllers: [ReplaysController], providers: [ReplaysService] })
export class ReplaysModule {}
