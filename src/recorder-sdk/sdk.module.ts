import { Module } from '@nestjs/common';
import { SdkAssetService } from './sdk-asset.service';
import { SdkController } from './sdk.controller';

/** Serves the browser recorder built by scripts/build-sdk.mjs at /sdk/recorder.js. */
@Module({
  controllers: [SdkController],
  providers: [SdkAssetService],
})
export class SdkModule {}
