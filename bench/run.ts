// npm run bench [-- --only gateway|backfill] [--seconds S] [--rounds R] [--members N] [--profile]
//   [--scale S]
// A thin dispatcher: every benchmark brings its own throwaway databases and Redis prefix on the
// configured servers and reports against a baseline measured in the same run.
//   gateway:  the compiled gateway against a bare node:http + pg server (bench/gateway/).
//   backfill: read-model backfill rate over a generated dashboard (scale 350 ≈ 1,000,000 rows).
import { parseArgs } from 'node:util';
import { benchBackfill } from './backfill.js';
import { benchGateway } from './gateway/index.js';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    members: { type: 'string', default: '200000' },
    profile: { type: 'boolean', default: false },
    scale: { type: 'string', default: '350' },
  },
});
const wanted = (name: string) => values.only === undefined || values.only === name;

if (wanted('gateway')) {
  console.log('== gateway: the compiled gateway against a bare node:http + pg baseline');
  await benchGateway({
    seconds: Number(values.seconds),
    rounds: Number(values.rounds),
    members: Number(values.members),
    profile: values.profile,
  });
}
if (wanted('backfill')) {
  console.log('\n== backfill: read-model rows per second');
  await benchBackfill({ scale: Number(values.scale) });
}
