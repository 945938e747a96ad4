import { ValidationError } from '../common/validation';
import { recordingIdFrom } from './recording-id';

const ID = '0b0e7f2c-1d2e-4f60-8a9b-0c1d2e3f4a5b';
const refusal = (value: unknown) => {
  try {
    return `accepted ${recordingIdFrom(value)}`;
  } catch (e) {
    return e instanceof ValidationError ? e.message : `crash: ${String(e)}`;
  }
};

describe('recordingIdFrom', () => {
  it('takes one UUID, in canonical lowercase', () => {
    expect(recordingIdFrom(ID.toUpperCase())).toBe(ID);
  });

  it('refuses a missing, malformed or repeated id with a 400 naming the problem', () => {
    expect(refusal(undefined)).toMatch(/^Invalid recordingId: required/);
    expect(refusal('')).toMatch(/^Invalid recordingId: required/);
    expect(refusal('nope')).toBe('Invalid recordingId: must be a UUID');
    // Repeated, the batch would go to whichever one a reader picks: the same value twice included.
    expect(refusal([ID, ID])).toBe('Invalid query: recordingId: must be given once');
    expect(refusal([ID, 'nope'])).toBe('Invalid query: recordingId: must be given once');
  });
});
