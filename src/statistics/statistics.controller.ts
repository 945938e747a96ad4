import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentAuth } from '../auth/auth.decorator';
import type { AuthContext } from '../auth/auth-context';
import { MAX_META_KEY_LENGTH } from '../domain/batch-summary';
import { ApiMetadataFilters } from '../recordings/metadata-filter.swagger';
import { ApiBadRequest, ApiStoreUnavailable } from '../recordings/recordings-query.openapi';
import { MAX_BUCKETS, parseStatisticsQuery } from './statistics.params';
import { statisticsSchema } from './statistics.schemas';
import { StatisticsService } from './statistics.service';

const time = (name: 'from' | 'to', description: string) =>
  ApiQuery({ name, required: false, schema: { type: 'string', example: name === 'from' ? '2024-12-25T00:00:00Z' : '1735689600000' }, description: `${description}; epoch milliseconds or ISO 8601 (date, or date-time with Z or an offset)` });

@ApiTags('statistics')
@Controller('statistics')
export class StatisticsController {
  constructor(private readonly stats: StatisticsService) {}

  @Get()
  @Auth({ keys: ['secret'] })
  @ApiOperation({
    summary: 'Get recording statistics',
    description:
      'Totals, a time series, event counts by type and an optional breakdown by a metadata key, for the recordings whose first event time is in [from, to) and that match the metadata filters. ' +
      'Computed from the ClickHouse projections (about a second behind ingestion).',
  })
  @time('from', 'Window start (inclusive); default to - 7 days')
  @time('to', 'Window end (exclusive); default now')
  @ApiQuery({
    name: 'interval',
    required: false,
    enum: ['minute', 'hour', 'day', 'week', 'month'],
    description: `Bucket size of series (UTC; weeks start on Monday, months are calendar months). Default by span: ≤ 6 h minute, ≤ 14 days hour, ≤ 730 days day, ≤ 20 years week, else month (so from=0 works). More than ${MAX_BUCKETS} buckets: 400.`,
  })
  @ApiQuery({ name: 'groupBy', required: false, schema: { type: 'string', minLength: 1, maxLength: MAX_META_KEY_LENGTH, example: 'plan' }, description: 'A metadata key: adds breakdown by its latest value' })
  @ApiMetadataFilters()
  @ApiResponse({ status: 200, schema: statisticsSchema })
  @ApiBadRequest('Bad from/to (unparseable, or from not before to), unknown interval, too many buckets, bad groupBy, or a bad metadata filter', 'The query string is not valid UTF-8 (at %FC)')
  @ApiStoreUnavailable('projections')
  get(@Query() query: Record<string, unknown>, @CurrentAuth() auth: AuthContext) {
    return this.stats.statistics(auth.tenantId, parseStatisticsQuery(query));
  }
}
