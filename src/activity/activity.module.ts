// GET /recordings/{id}/activity: a recording's activity timeline (docs/activity.md). The listing's
// activity filters and summary belong to the recordings listing (read-model/activity.sql.ts).
import { Module } from '@nestjs/common';
import { ReadModelModule } from '../read-model/read-model.module';
import { RecordingsModule } from '../recordings/recordings.module';
import { RecordingActivityController } from './recording-activity.controller';
import { RecordingActivityService } from './recording-activity.service';

@Module({ imports: [ReadModelModule, RecordingsModule], controllers: [RecordingActivityController], providers: [RecordingActivityService] })
export class ActivityModule {}
