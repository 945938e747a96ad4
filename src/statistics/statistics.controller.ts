import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentAuth } from '../auth/auth.decorator';
import type { AuthContext } from '../auth/auth-context';
import { ApiBadRequest, ApiStoreUnavailable } from '../common/openapi/api-responses';
import { ApiMetadataFilters } from '../read-model/metadata-filter.dto';
import { Statistics, StatisticsQuery } from './statistics.dto';
import { statisticsParams } from './statistics.params';
import { StatisticsService } from './statistics.service';

@ApiTags('statistics')
@Controller('statistics')
export class StatisticsController {
  constructor(private readonly stats: StatisticsService) {}

  @Get()
  @Auth({ keys: ['secret'] })
  @ApiOperation({
    summary: 'Get recording statistics',
    description:
      'Totals, a time series, event counts by type, activity (errors, recordings with errors or rage clicks, over time; top pages) and an optional breakdown by a metadata key, for the recordings whose first event time is in [from, to) and that match the metadata and activity filters (those of GET /recordings, docs/activity.md). ' +
      'Computed from the ClickHouse projections (about a second behind ingestion).',
  })
  @ApiMetadataFilters()
  @ApiResponse({ status: 200, type: Statistics.Output })
  @ApiBadRequest(
    'Bad from/to (unparseable, or from not before to), unknown interval, too many buckets, bad groupBy, a bad metadata or activity filter, or an unknown parameter (JSON, each named in issues[].path)',
    'The query string is not valid UTF-8 (at %FC)',
  )
  @ApiStoreUnavailable('projections')
  get(@Query() query: StatisticsQuery, @CurrentAuth() auth: AuthContext): Promise<Statistics> {
    return this.stats.statistics(auth.tenantId, statisticsParams(query));
  }
}
