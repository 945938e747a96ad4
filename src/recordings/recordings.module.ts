import { Module } from '@nestjs/common';
import { LiveModule } from '../live/live.module';
import { ReadModelModule } from '../read-model/read-model.module';
import { RecordingDeletionController } from './recording-deletion.controller';
import { RecordingDeletion } from './recording-deletion.service';
import { RecordingEventsController } from './recording-events.controller';
import { RecordingEventsService } from './recording-events.service';
import { RecordingShareController } from './recording-share.controller';
import { RecordingsController } from './recordings.controller';
import { RecordingsQueryService } from './recordings-query.service';
import { WindowHints } from './window-hints.service';

@Module({
  imports: [ReadModelModule, LiveModule],
  controllers: [RecordingsController, RecordingEventsController, RecordingDeletionController, RecordingShareController],
  providers: [RecordingEventsService, RecordingsQueryService, RecordingDeletion, WindowHints],
  exports: [RecordingEventsService, RecordingsQueryService, WindowHints],
})
export class RecordingsModule {}
