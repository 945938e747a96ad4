import { Module } from '@nestjs/common';
import { ReadModelModule } from '../read-model/read-model.module';
import { StatisticsController } from './statistics.controller';
import { StatisticsService } from './statistics.service';

@Module({ imports: [ReadModelModule], controllers: [StatisticsController], providers: [StatisticsService] })
export class StatisticsModule {}
