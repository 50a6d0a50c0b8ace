// npm run bench [-- --only rate-limit|backfill|lag|member-writes] [--seconds N] [--connections C] [--scale S]
// Every benchmark brings its own throwaway databases and Redis prefix on the configured servers
// and reports against a baseline measured in the same run.
//   rate-limit: gateway throughput with and without the per-client limiter, as a ratio.
//   backfill:   read-model backfill rate over a generated dashboard (scale 350 ≈ 1,000,000 rows),
//               then the cost of one full reconciliation pass over it.
//   lag:        commit-to-visible p50/p99 under legacy write load, and the worker's legacy load.
//   member-writes: POST /members latency (p50, p95) beside GET /members/{id} (bench/member-writes.ts).
import { parseArgs } from 'node:util';
import { benchBackfill } from './backfill.js';
import { benchLag } from './lag.js';
import { benchMemberWrites } from './member-writes.js';
import { benchRateLimit } from './rate-limit.js';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    scale: { type: 'string', default: '350' },
    'lag-rate': { type: 'string', default: '50' },
    'lag-seconds': { type: 'string', default: '60' },
    'lag-scale': { type: 'string', default: '35' },
  },
});
const wanted = (name: string) => values.only === undefined || values.only === name;

if (wanted('rate-limit')) {
  console.log('== rate limits: gateway throughput with and without the limiter');
  await benchRateLimit({
    seconds: Number(values.seconds),
    connections: Number(values.connections),
  });
}
if (wanted('backfill')) {
  console.log('\n== backfill: read-model rows per second');
  await benchBackfill({ scale: Number(values.scale) });
}
if (wanted('lag')) {
  console.log('\n== lag: commit-to-visible under legacy write load');
  await benchLag({
    rate: Number(values['lag-rate']),
    seconds: Number(values['lag-seconds']),
    scale: Number(values['lag-scale']),
  });
}
if (wanted('member-writes'))
  await benchMemberWrites({
    seconds: Number(values.seconds),
    connections: Number(values.connections),
  });
