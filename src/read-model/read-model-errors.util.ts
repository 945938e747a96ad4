// ClickHouse failures of the read model: an error ClickHouse reported (bad SQL, a bug) stays a 500;
// failing to reach it (connection refused, timeout) is StoreUnavailable ("retry"), since JetStream
// still holds every acknowledged write and the projection catches up.
import { ClickHouseError } from '@clickhouse/client';
import { AppError, StoreUnavailable } from '../common/app-error';

export async function fromReadModel<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (e) {
    if (e instanceof ClickHouseError || e instanceof AppError) throw e;
    throw new StoreUnavailable('The read model (ClickHouse) is unavailable; retry shortly');
  }
}
