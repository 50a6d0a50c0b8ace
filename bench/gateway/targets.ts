// The list and statistics targets, one block after the per-endpoint table, from the same rounds:
// each figure per round, its mean and the rounds' min–max, its ratio to what it is judged against
// in the same run (GET /members/{id} through the gateway, page 1's p50, or the bare baseline of
// the same request, or the same request through a gateway that counts no usage), the target, and
// whether the ratio of the means meets it. A ratio's spread pairs round i with round i, both
// having run in that round under the same load on the machine.
import { DEEP_PAGE, type BenchEndpoint } from './endpoints.js';
import type { LoadResult } from './load.js';
import type { Started } from './processes.js';

/** What a request is sent through: the gateway as run, or one of the same run's references. */
export type Target = 'gateway' | 'baseline' | 'uncounted' | 'traced' | 'unrecorded';
/** Every round's result of each endpoint measured, per target. */
export type Measured = Map<BenchEndpoint, Record<Target, LoadResult[]>>;

type Figure = 'req/s' | 'p50 ms' | 'p99 ms';

interface Goal {
  /** The endpoint's name in ENDPOINTS; its figure through the gateway. */
  endpoint: string;
  figure: Figure;
  /**
   * `'baseline'`: the baseline's same figure for the same request; `'uncounted'`: the same request
   * through the gateway that counts no usage; otherwise the name of another endpoint, its figure
   * through the gateway.
   */
  against: string;
  /** Bound of the ratio of the means: at least for throughput, at most for latency. */
  target: ['≥' | '≤', number];
}

const DETAIL = 'members detail';
const DEEP = `members list page ${DEEP_PAGE}`;
const againstDetail = (endpoint: string): Goal => ({
  endpoint,
  figure: 'req/s',
  against: DETAIL,
  target: ['≥', 0.3],
});
const againstBaseline = (endpoint: string): Goal => ({
  endpoint,
  figure: 'req/s',
  against: 'baseline',
  target: ['≥', 0.4],
});

const GOALS: Goal[] = [
  againstDetail('members list'),
  againstDetail('members list branch 1'),
  againstDetail('members list active'),
  againstDetail('members list active branch 1'),
  // `members list` is page 1: no page parameter means page 1.
  { endpoint: DEEP, figure: 'p50 ms', against: 'members list', target: ['≤', 3] },
  againstDetail('transactions of branch 1'),
  againstDetail('dashboard stats'),
  againstDetail('dashboard stats bound'),
  againstBaseline(DETAIL),
  { endpoint: DETAIL, figure: 'p99 ms', against: 'baseline', target: ['≤', 2.5] },
  againstBaseline('branches list'),
  againstBaseline('packages list'),
];

/** Counting usage costs the detail and the first list page at most 3 % of their throughput. */
const COUNTING_GOALS: Goal[] = [DETAIL, 'members list'].map((endpoint) => ({
  endpoint,
  figure: 'req/s',
  against: 'uncounted',
  target: ['≥', 0.97],
}));

/**
 * Withholding what a client does not hold costs its reads at most 3 % of a client holding every
 * class (docs/decisions/0023-data-classes.md).
 */
const WITHHOLDING_GOALS: Goal[] = [
  { endpoint: 'members detail basic', figure: 'req/s', against: DETAIL, target: ['≥', 0.97] },
  { endpoint: 'members list basic', figure: 'req/s', against: 'members list', target: ['≥', 0.97] },
];

/** Recording who received whose data costs the detail and list reads at most 3 % (decision 0023). */
const RECORDING_GOALS: Goal[] = [DETAIL, 'members list'].map((endpoint) => ({
  endpoint,
  figure: 'req/s',
  against: 'unrecorded',
  target: ['≥', 0.97],
}));

const ON_OFF: Partial<Record<Target, string>> = {
  uncounted: 'counting on / off',
  unrecorded: 'recording on / off',
};

const VALUE_OF: Record<Figure, (r: LoadResult) => number> = {
  'req/s': (r) => r.requestsPerSecond,
  'p50 ms': (r) => r.p50Ms,
  'p99 ms': (r) => r.p99Ms,
};

const fmt = (n: number, digits = 0) => n.toFixed(digits);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const range = (xs: number[], digits: number) =>
  `${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)}`;
const labelOf = (e: BenchEndpoint) =>
  `${e.method} ${e.path.replace('/api/v1', '')}` +
  (e.bearer === 'bound' ? ' (client bound to branch 1)' : '') +
  (e.bearer === 'basic' ? ' (client holding basic only)' : '');

const NAME_OF: Record<Exclude<Target, 'gateway'>, string> = {
  baseline: 'baseline',
  uncounted: 'counting off',
  unrecorded: 'recipients recording off',
  traced: 'tracing on',
};

type ByName = ReadonlyMap<string, readonly [BenchEndpoint, Record<Target, LoadResult[]>]>;

function goalLine(goal: Goal, byName: ByName) {
  const measured = byName.get(goal.endpoint);
  const side: Target =
    goal.against === 'baseline' || goal.against === 'uncounted' || goal.against === 'unrecorded'
      ? goal.against
      : 'gateway';
  const reference = side === 'gateway' ? byName.get(goal.against) : measured;
  if (!measured?.[1].gateway.length || !reference?.[1][side].length) {
    return `${goal.endpoint} ${goal.figure} against ${goal.against}: not measured in this run`;
  }
  const digits = goal.figure === 'req/s' ? 0 : 2;
  const values = measured[1].gateway.map(VALUE_OF[goal.figure]);
  const references = reference[1][side].map(VALUE_OF[goal.figure]);
  const ratio = mean(values) / mean(references);
  const ratios = values.map((v, i) => v / references[i]!);
  const [sign, bound] = goal.target;
  const met = sign === '≥' ? ratio >= bound : ratio <= bound;
  const failures = [...measured[1].gateway, ...reference[1][side]].reduce(
    (n, r) => n + r.failures,
    0,
  );
  return (
    `${labelOf(measured[0])} ${goal.figure}: rounds ${values.map((v) => fmt(v, digits)).join(', ')}; ` +
    `mean ${fmt(mean(values), digits)} (${range(values, digits)}) / ` +
    `${side === 'gateway' ? `gateway ${labelOf(reference[0])}` : NAME_OF[side]} ` +
    `${fmt(mean(references), digits)} (${range(references, digits)}) = ` +
    `${fmt(ratio, 2)} (rounds ${range(ratios, 2)}); ` +
    `${ON_OFF[side] ?? 'target'} ${sign} ${bound}: ${met ? 'met' : 'not met'}` +
    (failures ? `; !! ${failures} failed requests` : '')
  );
}

/** The rows the gateway answers for `endpoint`: 0 for a page past the end. */
async function rowsOf(gateway: Started, token: string, endpoint: BenchEndpoint) {
  const response = await fetch(`${gateway.url}${endpoint.path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await response.json()) as { data?: unknown[] };
  return body.data?.length ?? 0;
}

/**
 * `token`: the unbound client's, to check whether the deep page has rows at `members` members;
 * past the end it is an empty page, not a deep one, and its line says so.
 */
export async function printTargets(
  results: Measured,
  gateway: Started,
  token: string,
  members: number,
) {
  const byName = new Map([...results].map(([e, r]) => [e.name, [e, r] as const]));
  const deep = byName.get(DEEP)?.[0];
  const deepRows = deep ? await rowsOf(gateway, token, deep) : undefined;
  const rounds = [...results.values()][0]?.gateway.length ?? 0;
  console.log(
    `\n== list and statistics targets (through the gateway, ${rounds} round${rounds === 1 ? '' : 's'}; ` +
      `ratio of the means, the rounds' min–max in brackets)`,
  );
  for (const goal of GOALS) {
    const pastTheEnd = goal.endpoint === DEEP && deepRows === 0;
    console.log(
      goalLine(goal, byName) +
        (pastTheEnd
          ? `\n  !! page ${DEEP_PAGE} is past the end at ${members} members: an empty page, not a ` +
            `deep one (it needs ${(DEEP_PAGE - 1) * 50 + 1} or more; the default --members 200000 has them)`
          : ''),
    );
  }
  console.log(
    `\n== usage counting's cost (the same requests through a second gateway with ` +
      `USAGE_COUNTING=off, in the same rounds)`,
  );
  for (const goal of COUNTING_GOALS) console.log(goalLine(goal, byName));
  console.log(
    `\n== withholding's cost (a client holding only basic against one holding every class, in ` +
      `the same rounds)`,
  );
  for (const goal of WITHHOLDING_GOALS) console.log(goalLine(goal, byName));
  console.log(
    `\n== the recipients record's cost (the same requests through a gateway with ` +
      `RECIPIENTS_RECORDING=off, in the same rounds)`,
  );
  for (const goal of RECORDING_GOALS) console.log(goalLine(goal, byName));
}
