// npm run bench [-- --only gateway|backfill|lag|webhooks|sources|member-writes|scale|soak|console|sandbox]
//   [--record] [--seconds S] [--rounds R] [--members N] [--soak S] [--profile] [--endpoint NAME] [--scale S]
//   [--lag-rate R --lag-seconds S --lag-scale S] [--rest-seconds S]
//   [--minutes N --faults --report-every-seconds S]
// npm run bench -- --only upgrade --from REF [--step-seconds S]
// A thin dispatcher: every benchmark brings its own throwaway databases and Redis prefix on the
// configured servers and reports against a baseline measured in the same run.
//   gateway:  the compiled gateway against a bare node:http + pg server (bench/gateway/).
//   backfill: read-model backfill rate over a generated dashboard (scale 350 ≈ 1,000,000 rows),
//             then the cost of one full reconciliation pass over it.
//   lag:      commit-to-visible p50/p99 under legacy write load, and the worker's legacy load.
//   webhooks: legacy commit → webhook received p50/p99 under load, deliveries/s
//             (bench/webhooks.ts).
//   sources:  both sync sources (SYNC_SOURCE poll and binlog) in turn against one private MariaDB
//             writing its binary log: commit → read model and → webhook received p50/p99 under
//             the lag load, legacy queries/s at rest, backfill rows/s, side by side
//             (bench/sources.ts).
//   member-writes: POST /members latency (p50, p95) beside GET /members/{id}
//             (bench/member-writes.ts).
//   console:  the console's usage and clients pages at `members` members and 30 days of usage
//             for 100 clients (p95), and members reads with CONSOLE on and off (bench/console.ts).
//   upgrade:  a rolling upgrade from the release REF to this checkout under partner load: its
//             migrations, then gateway 1, gateway 2 and the worker replaced one at a time; fails
//             on any 5xx, lost write, lost webhook event, feed gap or sync:verify difference
//             (bench/upgrade.ts). Only with --only, as soak.
//   scale:    req/s with 1 and 2 gateway processes behind one port (node:cluster), backfill rows/s
//             with 1 and 2 worker processes, each with the ratio 2/1, and the cores in use by the
//             load generator, the processes and the servers (bench/scale.ts).
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { benchBackfill } from './backfill.js';
import { benchConsole } from './console.js';
import { cleanUpOnInterrupt } from './cleanup.js';
import { benchGateway } from './gateway/index.js';
import { benchLag } from './lag.js';
import { benchMemberWrites } from './member-writes.js';
import { benchScale } from './scale.js';
import { benchSoak } from './soak.js';
import { benchSources } from './sources.js';
import { benchUpgrade } from './upgrade.js';
import { benchWebhooks } from './webhooks.js';
import { benchSandbox } from './sandbox.js';
import { collectPrinted, recordFigures, section } from './record.js';

const BENCHMARKS = [
  'gateway',
  'backfill',
  'lag',
  'webhooks',
  'sources',
  'member-writes',
  'scale',
  'soak',
  'console',
  'upgrade',
  'sandbox',
] as const;
const NUMBERS = [
  'seconds',
  'rounds',
  'connections',
  'members',
  'soak',
  'scale',
  'lag-rate',
  'lag-seconds',
  'lag-scale',
  'webhook-events',
  'rest-seconds',
  'minutes',
  'report-every-seconds',
  'step-seconds',
] as const;

function parse() {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      seconds: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '10' },
      members: { type: 'string', default: '200000' },
      soak: { type: 'string', default: '300' },
      profile: { type: 'boolean', default: false },
      record: { type: 'boolean', default: false },
      endpoint: { type: 'string' },
      scale: { type: 'string', default: '350' },
      'lag-rate': { type: 'string', default: '50' },
      'lag-seconds': { type: 'string', default: '60' },
      'lag-scale': { type: 'string', default: '35' },
      'webhook-events': { type: 'string', default: '20000' },
      'rest-seconds': { type: 'string', default: '60' },
      minutes: { type: 'string', default: '30' },
      faults: { type: 'boolean', default: false },
      'report-every-seconds': { type: 'string', default: '300' },
      from: { type: 'string' },
      'step-seconds': { type: 'string', default: '20' },
    },
  });
  if (values.only === 'upgrade' && !values.from)
    throw new Error('--only upgrade needs --from REF (the release to upgrade from)');
  if (values.only !== undefined && !(BENCHMARKS as readonly string[]).includes(values.only))
    throw new Error(`--only must be one of ${BENCHMARKS.join(', ')}; got "${values.only}"`);
  for (const name of NUMBERS) {
    const n = Number(values[name]);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a number, 0 or more`);
  }
  return values;
}

// A mistake in the arguments is one line naming the option, not a stack trace.
let values: ReturnType<typeof parse>;
try {
  values = parse();
} catch (error) {
  console.error(`bench: ${(error as Error).message}`);
  process.exit(2);
}
const wanted = (name: string) => values.only === undefined || values.only === name;
// Nothing stays behind (bench/cleanup.ts): each benchmark removes what it made as it ends, and
// Ctrl-C or SIGTERM removes what a benchmark still held.
cleanUpOnInterrupt();
// --record: the verdicts go to docs/benchmarks.md as each benchmark's latest (bench/record.ts).
const loadBefore = loadavg()[0]!;
if (values.record) collectPrinted();

if (wanted('gateway')) {
  section('gateway');
  console.log('== gateway: the compiled gateway against a bare node:http + pg baseline');
  await benchGateway({
    seconds: Number(values.seconds),
    rounds: Number(values.rounds),
    members: Number(values.members),
    soak: Number(values.soak),
    profile: values.profile,
    endpoint: values.endpoint,
  });
}
if (wanted('sandbox')) {
  section('sandbox');
  console.log("\n== sandbox: live reads with a busy sandbox client beside them; the club's size");
  await benchSandbox({
    seconds: Number(values.seconds),
    rounds: Number(values.rounds),
    members: Number(values.members),
  });
}
if (wanted('console')) {
  section('console');
  console.log('\n== console: its pages at scale, and members reads with the console on and off');
  await benchConsole({
    seconds: Number(values.seconds),
    rounds: Number(values.rounds),
    members: Number(values.members),
  });
}
if (wanted('backfill')) {
  section('backfill');
  console.log('\n== backfill: read-model rows per second');
  await benchBackfill({ scale: Number(values.scale), profile: values.profile });
}
if (wanted('lag')) {
  section('lag');
  console.log('\n== lag: commit-to-visible under legacy write load');
  await benchLag({
    rate: Number(values['lag-rate']),
    seconds: Number(values['lag-seconds']),
    scale: Number(values['lag-scale']),
  });
}
if (wanted('webhooks')) {
  section('webhooks');
  console.log('\n== webhooks: commit-to-received latency under legacy load, and the delivery rate');
  await benchWebhooks({
    rate: Number(values['lag-rate']),
    seconds: Number(values['lag-seconds']),
    scale: Number(values['lag-scale']),
    events: Number(values['webhook-events']),
    profile: values.profile,
  });
}
if (wanted('sources')) {
  section('sources');
  console.log('\n== sources: polling and the binary log in the same run, on one server');
  await benchSources({
    rate: Number(values['lag-rate']),
    seconds: Number(values['lag-seconds']),
    scale: Number(values.scale),
    lagScale: Number(values['lag-scale']),
    restSeconds: Number(values['rest-seconds']),
  });
}
if (wanted('member-writes')) {
  section('member-writes');
  await benchMemberWrites({
    seconds: Number(values.seconds),
    connections: Number(values.connections),
    profile: values.profile,
  });
}
if (wanted('scale')) {
  section('scale');
  console.log('\n== scale: 1 and 2 gateway processes, 1 and 2 worker processes');
  await benchScale({
    seconds: Number(values.seconds),
    rounds: Number(values.rounds),
    members: Number(values.members),
    scale: Number(values.scale),
  });
}
if (values.only === 'soak') {
  section('soak');
  console.log(`\n== soak: steady mixed load${values.faults ? ' with faults' : ''}`);
  await benchSoak({
    minutes: Number(values.minutes),
    faults: values.faults,
    reportEverySeconds: Number(values['report-every-seconds']),
  });
}
if (values.only === 'upgrade') {
  section('upgrade');
  console.log(
    `\n== upgrade: from ${values.from} to this checkout under load, one process at a time`,
  );
  await benchUpgrade({ from: values.from!, stepSeconds: Number(values['step-seconds']) });
}
if (values.record) recordFigures(process.argv.slice(2), loadBefore);
