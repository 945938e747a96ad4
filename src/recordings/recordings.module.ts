import { Module } from '@nestjs/common';
import { RecordingDeletionController } from './recording-deletion.controller';
import { RecordingDeletion } from './recording-deletion.service';
import { RecordingEventsController } from './recording-events.controller';
import { RecordingEventsService } from './recording-events.service';
import { RecordingsController } from './recordings.controller';
import { RecordingsQueryService } from './recordings-query.service';

@Module({
  controllers: [RecordingsController, RecordingEventsController, RecordingDeletionController],
  providers: [RecordingEventsService, RecordingsQueryService, RecordingDeletion],
  exports: [RecordingEventsService, RecordingsQueryService],
})
export class RecordingsModule {}
