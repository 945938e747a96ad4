import { endFrame, eventsFrame, parseLastEventId, singleLine, statusFrame } from './sse';

describe('SSE framing', () => {
  it('keeps JSON on one data line: raw line breaks between tokens become spaces, the same buffer when there are none', () => {
    const plain = Buffer.from('[{"a":"x\\ny"}]');
    expect(singleLine(plain)).toBe(plain);
    const pretty = Buffer.from('[\r\n  {"a": 1},\n  {"b": "c\\r"}\r]');
    const out = singleLine(pretty);
    expect(out.toString()).not.toMatch(/[\r\n]/);
    expect(JSON.parse(out.toString())).toEqual([{ a: 1 }, { b: 'c\r' }]);
    expect(pretty.toString()).toContain('\n'); // the stored bytes are not changed
  });

  it('frames events with their id, status and end messages', () => {
    expect(eventsFrame(42, Buffer.from('[\n{"t":1}]')).toString()).toBe('id: 42\nevent: events\ndata: [ {"t":1}]\n\n');
    expect(statusFrame({ live: false, lastEventAt: null, serverTime: 5 }).toString()).toBe(
      'event: status\ndata: {"live":false,"lastEventAt":null,"serverTime":5}\n\n',
    );
    expect(endFrame('deleted').toString()).toBe('event: end\ndata: {"reason":"deleted"}\n\n');
  });

  it('takes a Last-Event-ID only when it is a positive stream sequence', () => {
    expect(parseLastEventId('57')).toBe(57);
    expect(parseLastEventId(' 57 ')).toBe(57);
    for (const bad of [undefined, '', '0', '-1', '1.5', 'abc', '1e3', '1234567890123456', ['5']]) expect(parseLastEventId(bad)).toBeUndefined();
  });
});
