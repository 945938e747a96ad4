// The console (docs/console.md): its pages and bundles, and the session API that signs a browser in
// with a private key or the admin token. The sessions themselves live in auth/ (console-sessions.ts),
// where the auth guard and the admin guard read them.
import { Module } from '@nestjs/common';
import { ConsoleAssets } from './console-assets';
import { ConsolePagesController } from './console-pages.controller';
import { ConsoleSessionController } from './console-session.controller';

@Module({
  controllers: [ConsolePagesController, ConsoleSessionController],
  providers: [ConsoleAssets],
})
export class ConsoleModule {}
