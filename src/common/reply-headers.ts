// Response headers set by handlers and the error filter. Vary lists what the answer depends on, and
// earlier layers add to it (CORS adds Origin), so it is extended, never replaced.
import type { FastifyReply } from 'fastify';

/** `existing` with the fields of `added` it does not name yet (case-insensitive); `*` absorbs all. */
export function mergeVary(existing: string | undefined, added: string): string {
  const fields = (v: string | undefined) =>
    (v ?? '')
      .split(',')
      .map((f) => f.trim())
      .filter(Boolean);
  const out = fields(existing);
  for (const f of fields(added)) {
    if (!out.some((o) => o.toLowerCase() === f.toLowerCase())) out.push(f);
  }
  return out.includes('*') ? '*' : out.join(', ');
}

/** Sets each header on the reply; a Vary value is merged into the one already there. */
export function setReplyHeaders(reply: FastifyReply, headers: Record<string, string>): FastifyReply {
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'vary') {
      const current = reply.getHeader('vary');
      reply.header('vary', mergeVary(Array.isArray(current) ? current.join(', ') : current === undefined ? undefined : String(current), value));
    } else {
      reply.header(name, value);
    }
  }
  return reply;
}
