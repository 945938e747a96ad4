import { ClickHouseError } from '@clickhouse/client';
import { AppError, headersOf, StoreUnavailable } from '../common/app-error';
import { fromReadModel } from './read-model-errors.util';

describe('fromReadModel', () => {
  it('passes results, errors ClickHouse reported and application errors through', async () => {
    await expect(fromReadModel(Promise.resolve(7))).resolves.toBe(7);
    const reported = new ClickHouseError({ message: 'Syntax error', code: '62', type: 'SYNTAX_ERROR' });
    await expect(fromReadModel(Promise.reject(reported))).rejects.toBe(reported);
    const notFound = new AppError('not_found', 'gone');
    await expect(fromReadModel(Promise.reject(notFound))).rejects.toBe(notFound);
  });

  it('turns an unreachable ClickHouse into StoreUnavailable with a retry hint', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const err = await fromReadModel(Promise.reject(refused)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailable);
    expect(err).toMatchObject({ code: 'unavailable', message: 'The read model (ClickHouse) is unavailable; retry shortly' });
    expect(headersOf(err as AppError)).toEqual({ 'Retry-After': '1' });
  });
});
