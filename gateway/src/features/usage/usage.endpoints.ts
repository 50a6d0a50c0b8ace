// GET /usage: the calling client's own usage, as the gateways counted it (decision 0015), with its
// rate limits and what is left of each window. Any valid token; a client never sees another's.
import { defineEndpoint } from '../../endpoint-services.js';
import { clientUsageReport } from './usage.report.js';
import { MAX_RANGE_DAYS, MAX_ROWS, usageQuery, usageResponse } from './usage.schemas.js';

export const getUsageEndpoint = defineEndpoint({
  operationId: 'getUsage',
  group: 'usage',
  method: 'GET',
  path: '/usage',
  summary: 'İstemcinin kendi kullanımı, sınırları ve kalan hakları',
  description: `Requests of this client by hour or UTC day, optionally by operation or status: counts are visible within a minute, token requests count under the client that authenticated. At most ${MAX_RANGE_DAYS} days and ${MAX_ROWS} rows: a wider range, or one with more rows, is 400 VALIDATION_ERROR (ask for days, or a shorter range). This call counts against the rate limits as any other.`,
  access: null,
  query: usageQuery,
  response: usageResponse,
  tables: [],
  handle: async ({ query, auth, services }) => ({
    success: true,
    data: await clientUsageReport(services.usage, auth(), query),
  }),
});
