import { hashKey } from '../auth/key-material';
import { AppError } from '../common/app-error';
import { checkAdminToken } from './admin-token.guard';

const TOKEN = 'a'.repeat(16) + 'Zz09';
const expected = hashKey(TOKEN);
const codeOf = (f: () => void) => {
  try {
    f();
    return 'ok';
  } catch (e) {
    return (e as AppError).code;
  }
};

describe('checkAdminToken', () => {
  it('is off (not_found) when no token is configured, whatever is sent', () => {
    expect(codeOf(() => checkAdminToken(undefined, `Bearer ${TOKEN}`))).toBe('not_found');
    expect(codeOf(() => checkAdminToken(undefined, undefined))).toBe('not_found');
  });

  it('accepts exactly the configured token as a Bearer credential', () => {
    expect(codeOf(() => checkAdminToken(expected, `Bearer ${TOKEN}`))).toBe('ok');
    expect(codeOf(() => checkAdminToken(expected, `bearer  ${TOKEN} `))).toBe('ok');
  });

  it.each([undefined, '', 'Bearer', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, `Bearer ${TOKEN} extra`, TOKEN, ['Bearer', TOKEN]])(
    'refuses %p without repeating it',
    (header) => {
      try {
        checkAdminToken(expected, header);
        throw new Error('accepted');
      } catch (e) {
        expect((e as AppError).code).toBe('unauthorized');
        expect((e as Error).message).not.toContain(TOKEN.slice(0, 16));
      }
    },
  );
});
