import { headers as natsHeaders, JsMsg } from 'nats';
import { formatSealedRef } from '../infrastructure/nats/sealed-record';
import { H } from '../infrastructure/nats/subjects';
import { toProjectionMessage } from './js-message';

function msg(seq: number, h: Record<string, string>, data = new Uint8Array(0)): JsMsg {
  const hdrs = natsHeaders();
  for (const [k, v] of Object.entries(h)) hdrs.set(k, v);
  return { seq, subject: 'td.rec.t.r.ev', headers: hdrs, data, info: { timestampNanos: 5_000_000_000 } } as unknown as JsMsg;
}

describe('toProjectionMessage', () => {
  it('sees a sealed batch record as the message it replaced: sequence, time, chunk, no payload', () => {
    const m = toProjectionMessage(msg(900, { [H.batch]: 'b1', [H.summary]: '{}', [H.sealed]: formatSealedRef({ a: 't.r.80', s: 12, t: 1234, c: '1/2' }) }));
    expect(m).toMatchObject({ seq: 12, streamSeq: 900, timeMs: 1234, data: undefined });
    expect(m.headers[H.chunk]).toBe('1/2');
    expect(m.headers[H.batch]).toBe('b1');
  });

  it('leaves other messages as they are', () => {
    const m = toProjectionMessage(msg(7, { [H.batch]: 'b2', [H.chunk]: '0/2' }, new Uint8Array([91, 93])));
    expect(m).toMatchObject({ seq: 7, timeMs: 5000, data: new Uint8Array([91, 93]) });
    expect(m.streamSeq).toBeUndefined();
    expect(m.headers[H.chunk]).toBe('0/2');
  });
});
