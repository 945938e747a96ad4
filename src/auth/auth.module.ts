import { Global, Module } from '@nestjs/common';
import { AuthGuard } from './auth.guard';
import { Authenticator } from './authenticator';
import { LinkSigner } from './link-signer';

@Global()
@Module({ providers: [Authenticator, AuthGuard, LinkSigner], exports: [Authenticator, AuthGuard, LinkSigner] })
export class AuthModule {}
