import { AppError } from '../common/app-error';
import { MetricsToken } from './metrics-token';

const TOKEN = 'scrape-' + 'Zz09'.repeat(6);

describe('MetricsToken', () => {
  it('admits everyone while METRICS_TOKEN is unset, as before', () => {
    const open = new MetricsToken({ METRICS_TOKEN: undefined });
    for (const header of [undefined, '', `Bearer ${TOKEN}`, 'Basic x']) {
      expect(open.admits(header)).toBe(true);
      expect(() => open.check(header)).not.toThrow();
    }
  });

  it('admits exactly Authorization: Bearer <METRICS_TOKEN> once it is set', () => {
    const t = new MetricsToken({ METRICS_TOKEN: TOKEN });
    expect(t.admits(`Bearer ${TOKEN}`)).toBe(true);
    expect(t.admits(`bearer  ${TOKEN} `)).toBe(true);
    for (const header of [
      undefined,
      '',
      'Bearer',
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(1)}`,
      `Basic ${TOKEN}`,
      TOKEN,
      `Bearer ${TOKEN} x`,
      [`Bearer ${TOKEN}`],
    ]) {
      expect([header, t.admits(header)]).toEqual([header, false]);
    }
  });

  it('refuses with a 401 that names what to send, never the token', () => {
    const t = new MetricsToken({ METRICS_TOKEN: TOKEN });
    try {
      t.check(`Bearer ${TOKEN.slice(0, -1)}`);
      throw new Error('accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      expect((e as AppError).code).toBe('unauthorized');
      expect((e as Error).message).toBe('Missing or invalid metrics token: send Authorization: Bearer <METRICS_TOKEN>');
    }
  });
});
