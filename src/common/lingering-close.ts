// Lingering close for answers sent before the request body was read: Fastify answers 413 as soon as
// a body is announced (or has grown) over the limit and closes the connection. Closed at once, the
// socket makes the kernel reset the connection when more of the body arrives, and a client that is
// still uploading then often loses the answer with the reset: measured on loopback, 10 of 20 uploads
// of 8 MiB + 1 byte saw `EPIPE` instead of the 413, and a client that sees a network error retries
// where a 413 would tell it to stop. As nginx's `lingering_close` does: send the answer, half-close,
// read and drop what the client still sends for a while, then close.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

const LINGERING = Symbol('lingering');

type LingeringSocket = Socket & { destroySoon?: () => void; [LINGERING]?: true };

/**
 * If `req`'s body has not been read to its end, the connection that Node would close once the
 * response is written (`socket.destroySoon()`, called for responses with `Connection: close`) is
 * half-closed instead and destroyed after `ms`, or earlier when the client closes its side. Node
 * discards the unread body meanwhile (the request is dumped once the response is finished).
 */
export function lingerAfterEarlyAnswer(req: IncomingMessage, ms: number): void {
  if (req.complete) return;
  const socket = req.socket as LingeringSocket | null;
  if (!socket || socket[LINGERING] || typeof socket.destroySoon !== 'function') return;
  socket[LINGERING] = true;
  socket.destroySoon = function lingeringClose(this: LingeringSocket) {
    const timer = setTimeout(() => this.destroy(), ms);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
    // The client closing its side ends the wait (http.Server sockets allow half-open connections).
    this.once('end', () => this.destroy());
    this.end();
  };
}
