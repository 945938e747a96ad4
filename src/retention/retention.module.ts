import { Module } from '@nestjs/common';
import { RecordingDeletion } from '../recordings/recording-deletion.service';
import { RetentionService } from './retention.service';

@Module({ providers: [RetentionService, RecordingDeletion], exports: [RetentionService] })
export class RetentionModule {}
