// npm run bench -- --only scale [--seconds S] [--rounds R] [--members N] [--scale S]
// What a second process buys on this machine: gateway requests/s with 1 and 2 gateway processes
// behind one port (bench/gateway/scale.ts) and the backfill rate with 1 and 2 worker processes
// (bench/backfill-scale.ts), each with the ratio 2/1 and the spread of the rounds; then the cores
// the machine has and who used them, since the load generator, the processes measured and the
// database servers all share them.
import { availableParallelism } from 'node:os';
import { benchBackfillScale } from './backfill-scale.js';
import { formatCores } from './cpu.js';
import { benchGatewayScale, countLabel, PROCESS_COUNTS } from './gateway/scale.js';

export interface ScaleOptions {
  seconds: number;
  rounds: number;
  members: number;
  scale: number;
}

type Spread = { mean: number; min: number; max: number };

const figure = (unit: string, per: Record<1 | 2, Spread>, ratio: Spread, what: string) =>
  PROCESS_COUNTS.map(
    (n) => `${countLabel(n, what)} ${Math.round(per[n].mean).toLocaleString('en-US')} ${unit}`,
  ).join(', ') +
  `, ratio 2/1 ${ratio.mean.toFixed(2)} (rounds ${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)})`;

export async function benchScale(options: ScaleOptions): Promise<void> {
  console.log('-- gateway: 1 and 2 gateway processes behind one port (node:cluster)');
  const gateway = await benchGatewayScale(options);
  console.log('\n-- backfill: 1 and 2 worker processes');
  const backfill = await benchBackfillScale(options);

  console.log('\nscale on this machine');
  for (const e of gateway) {
    console.log(`  ${e.endpoint.name.padEnd(15)} ${figure('req/s', e.rps, e.ratio, 'gateway')}`);
  }
  console.log(
    `  ${'backfill'.padEnd(15)} ${figure('rows/s', backfill.rowsPerSecond, backfill.ratio, 'worker')}`,
  );
  const detail = gateway.find((e) => e.endpoint.name === 'members detail') ?? gateway[0];
  console.log(
    `  what limits it: ${availableParallelism()} cores (os.availableParallelism()) shared by everything measured; ` +
      (detail
        ? `cores in use with 2 gateway processes (${detail.endpoint.name}): ${formatCores(detail.cores[2])}; `
        : '') +
      `with 2 worker processes: ${formatCores(backfill.cores[2])}`,
  );
}
