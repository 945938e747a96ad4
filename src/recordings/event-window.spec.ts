import { AppError } from '../common/app-error';
import { parseWith, ValidationError } from '../common/validation';
import { eventWindow } from './event-window';
import { EventWindowQuerySchema } from './event-window.dto';

const parse = (q: Record<string, string>) => parseWith(EventWindowQuerySchema, q, 'query');
const resolve = (q: Record<string, string>) => eventWindow(parse(q))!.resolve(1000, 11_000);

describe('event windows', () => {
  it('take the time selector forms and plain epoch ms, resolved against the recording', () => {
    expect(resolve({ from: 'offset:-2000', to: 'percent:90' })).toEqual({ from: 9000, to: 10_000 });
    expect(resolve({ from: '5000', to: 'epoch:6000' })).toEqual({ from: 5000, to: 6000 });
    expect(resolve({ from: 'offset:500' })).toEqual({ from: 1500, to: undefined });
    expect(resolve({ from: 'epoch:1', to: 'epoch:99999' })).toEqual({ from: 1, to: 99_999 });
    expect(eventWindow(parse({}))).toBeUndefined();
    expect(eventWindow(parse({ limit: '5' }))!.limit).toBe(5);
  });

  it('name the parameter of a bad value (JSON 400), and refuse a window that misses the recording (422)', () => {
    const issue = (q: Record<string, string>) => {
      try {
        resolve(q);
      } catch (e) {
        return e instanceof ValidationError ? e.issues[0].path : e instanceof AppError ? e.code : String(e);
      }
    };
    expect(issue({ from: 'minute:3' })).toBe('from');
    expect(issue({ to: 'percent:101' })).toBe('to');
    expect(issue({ limit: '0' })).toBe('limit');
    expect(issue({ from: 'epoch:6000', to: 'epoch:5000' })).toBe('from');
    expect(issue({ from: 'offset:10001' })).toBe('unprocessable');
    expect(issue({ to: 'epoch:999' })).toBe('unprocessable');
  });
});
