// The 429 of reads metered by the tenant's read bandwidth, for the routes' OpenAPI operations.
import { ApiTextError } from '../common/openapi/api-responses';

export const ApiReadBandwidth = () =>
  ApiTextError(
    429,
    "Over the key's request rate, or the tenant's read bandwidth (readBytesPerSecond) is in use by its other reads; nothing was sent, retry after Retry-After (text/plain, names the limit)",
    'Read bandwidth limit reached: this tenant may use 2097152 bytes per second (limit readBytesPerSecond); retry later',
  );
