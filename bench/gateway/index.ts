// npm run bench -- --only gateway [--seconds S] [--rounds R] [--members N] [--profile] [--soak S]
// The gateway as production runs it against a bare node:http + pg server over the same database,
// endpoint by endpoint (endpoints.ts), in alternating rounds so that other load on the machine hits
// both alike; the load generator runs in its own process (load.ts). Prints requests/s, p50, p99 and
// the ratio gateway / baseline, with the spread of the rounds, and the gateway's RSS; the members
// detail and list also on a second gateway that counts no usage (USAGE_COUNTING=off) and on a
// third that traces every request (OTEL_EXPORTER_OTLP_ENDPOINT set to a local sink, otlp-sink.ts,
// the SDK's default sampler), in the same rounds; then the list, statistics and counting targets
// over those rounds (targets.ts); then the change feed against paging through every member
// (feed.ts); then a flood of made-up bearer tokens beside a valid client (token-flood.ts); then a
// storm of good token requests from many clients beside a valid client (token-storm.ts); then the
// members search alone for `soak` seconds, the gateway's RSS sampled every 30 s (the RSS target is
// for five minutes of that load, and a leak shows as a line that keeps rising).
import { createReadModelClient } from '#common/databases.js';
import { benchEnvironment, makeTempDir, releaseInTurn, removeTempDir } from '../cleanup.js';
import { ENDPOINTS, type BenchEndpoint } from './endpoints.js';
import { benchFeed } from './feed.js';
import { applyLoad, loadGenerator, type LoadResult } from './load.js';
import { startBaseline, startGateway, startOtlpSink, type Started } from './processes.js';
import { printProfileSplit } from './profile.js';
import { createBenchClient, issueToken, seedMembers } from './seed.js';
import { printTargets, type Measured, type Target } from './targets.js';
import { benchTokenFlood } from './token-flood.js';
import { benchTokenStorm } from './token-storm.js';

export interface GatewayBenchOptions {
  seconds: number;
  rounds: number;
  members: number;
  profile: boolean;
  /** Only the endpoints whose name contains this, e.g. `detail` while profiling one path. */
  endpoint?: string;
  /** Seconds of members search after the rounds, RSS sampled along; 0 for none. */
  soak: number;
}

const SOAK_STEP_SECONDS = 30;

/** The members search for `seconds`, in steps: the gateway's RSS after each, and the spread. */
async function soak(seconds: number, gateway: Started, who: Credentials) {
  const search = ENDPOINTS.find((e) => e.name === 'members search');
  if (!search) throw new Error('no members search endpoint to soak');
  const samples = [gateway.rssMb()];
  let failures = 0;
  for (let done = 0; done < seconds; done += SOAK_STEP_SECONDS) {
    const step = Math.min(SOAK_STEP_SECONDS, seconds - done);
    failures += (await applyLoad(requestOf(search, gateway, who, step))).failures;
    samples.push(gateway.rssMb());
  }
  const last = samples.slice(-3);
  console.log(
    `
gateway RSS under ${seconds} s of ${search.path} (${search.connections} connections), every ${SOAK_STEP_SECONDS} s: ` +
      `${samples.map((mb) => fmt(mb)).join(', ')} MB; last three ${fmt(Math.min(...last))}–${fmt(Math.max(...last))} MB` +
      (failures ? `; !! ${failures} failed requests` : ''),
  );
}

/**
 * `uncounted`: the second gateway, USAGE_COUNTING=off; `traced`: the third, counting as `gateway`
 * does and tracing every request; `gateway` counts as production does, without tracing.
 */
export type Credentials = {
  client_key: string;
  client_secret: string;
  token: string;
  /** A token of the same client bound to branch 1, for the endpoints with `bearer: 'bound'`. */
  boundToken?: string;
  /** A token of the same client holding only `basic`, for those with `bearer: 'basic'`. */
  basicToken?: string;
};

export function requestOf(
  endpoint: BenchEndpoint,
  server: Started,
  who: Credentials,
  seconds: number,
) {
  const headers: Record<string, string> = {};
  if (endpoint.bearer) {
    const token =
      endpoint.bearer === 'bound'
        ? who.boundToken
        : endpoint.bearer === 'basic'
          ? who.basicToken
          : who.token;
    if (!token) throw new Error(`${endpoint.name}: no token of that client`);
    headers.authorization = `Bearer ${token}`;
  }
  if (endpoint.body) headers['content-type'] = 'application/json';
  return {
    url: `${server.url}${endpoint.path}`,
    method: endpoint.method,
    headers,
    body: endpoint.body
      ?.replace('{{client_key}}', who.client_key)
      .replace('{{client_secret}}', who.client_secret),
    connections: endpoint.connections,
    seconds,
  };
}

const fmt = (n: number, digits = 0) => n.toFixed(digits);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

function summary(name: string, results: Record<Target, LoadResult[]>) {
  const rps = (t: Target) => results[t].map((r) => r.requestsPerSecond);
  const line = (t: Target) =>
    results[t].length === 0
      ? `${t}: n/a`
      : `${t} ${fmt(mean(rps(t)))} req/s (rounds ${fmt(Math.min(...rps(t)))}–${fmt(Math.max(...rps(t)))}), ` +
        `p50 ${fmt(median(results[t].map((r) => r.p50Ms)), 2)} ms, ` +
        `p99 ${fmt(median(results[t].map((r) => r.p99Ms)), 2)} ms (worst ${fmt(Math.max(...results[t].map((r) => r.p99Ms)), 2)}), ` +
        `server CPU ${fmt(median(results[t].map((r) => r.cpuMsPerRequest ?? 0)), 3)} ms/request`;
  const ratios = results.gateway.map((g, i) =>
    results.baseline[i] ? g.requestsPerSecond / results.baseline[i].requestsPerSecond : NaN,
  );
  const ratio = results.baseline.length
    ? `ratio ${fmt(mean(rps('gateway')) / mean(rps('baseline')), 2)} (rounds ${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)})`
    : 'ratio n/a (no baseline)';
  const offRatios = results.uncounted.map((u, i) =>
    results.gateway[i] ? results.gateway[i].requestsPerSecond / u.requestsPerSecond : NaN,
  );
  const counting = results.uncounted.length
    ? `\n  ${line('uncounted')}\n  counting on / off ${fmt(mean(rps('gateway')) / mean(rps('uncounted')), 3)} ` +
      `(rounds ${fmt(Math.min(...offRatios), 3)}–${fmt(Math.max(...offRatios), 3)})`
    : '';
  const tracedRatios = results.traced.map((t, i) =>
    results.gateway[i] ? t.requestsPerSecond / results.gateway[i].requestsPerSecond : NaN,
  );
  const tracing = results.traced.length
    ? `\n  ${line('traced')}\n  tracing on / off ${fmt(mean(rps('traced')) / mean(rps('gateway')), 3)} ` +
      `(rounds ${fmt(Math.min(...tracedRatios), 3)}–${fmt(Math.max(...tracedRatios), 3)}; ` +
      `every request sampled, the SDK's default parentbased_always_on)`
    : '';
  const unrecorded = results.unrecorded.length
    ? `\n  ${line('unrecorded')}\n  recipients recording on / off ${fmt(mean(rps('gateway')) / mean(rps('unrecorded')), 3)}`
    : '';
  const failures = Object.values(results)
    .flat()
    .reduce((n, r) => n + r.failures, 0);
  console.log(
    `\n${name}\n  ${line('gateway')}\n  ${line('baseline')}\n  ${ratio}${counting}${tracing}${unrecorded}`,
  );
  if (failures > 0) console.log(`  !! ${failures} failed requests (non-2xx, errors, timeouts)`);
}

async function measure(
  options: GatewayBenchOptions,
  servers: Record<'gateway' | 'baseline', Started> &
    Partial<Record<'uncounted' | 'traced' | 'unrecorded', Started>>,
  who: Credentials,
) {
  const endpoints = ENDPOINTS.filter((e) => e.name.includes(options.endpoint ?? ''));
  const results: Measured = new Map(
    endpoints.map((e) => [
      e,
      { gateway: [], baseline: [], uncounted: [], traced: [], unrecorded: [] },
    ]),
  );
  const targetsOf = (e: BenchEndpoint): Target[] => [
    ...(e.baseline ? (['baseline'] as const) : []),
    'gateway',
    ...(e.uncounted && servers.uncounted ? (['uncounted'] as const) : []),
    ...(e.uncounted && servers.traced ? (['traced'] as const) : []),
    ...(e.uncounted && servers.unrecorded ? (['unrecorded'] as const) : []),
  ];
  // A warm-up as long as a round: shorter ones left the first round still paying for JIT
  // compilation and heap growth (its CPU per request came out up to twice the later rounds').
  for (const endpoint of endpoints) {
    for (const target of targetsOf(endpoint))
      await applyLoad(requestOf(endpoint, servers[target]!, who, options.seconds));
  }
  const rssAfterWarmUp = servers.gateway.rssMb();
  for (let round = 0; round < options.rounds; round++) {
    for (const endpoint of endpoints) {
      const order = round % 2 === 0 ? targetsOf(endpoint) : targetsOf(endpoint).reverse();
      for (const target of order) {
        // targetsOf names `uncounted`, `traced` and `unrecorded` only when those were started.
        const server = servers[target]!;
        const cpuBefore = server.cpuMs();
        const result = await applyLoad(requestOf(endpoint, server, who, options.seconds));
        result.cpuMsPerRequest =
          (server.cpuMs() - cpuBefore) / (result.requestsPerSecond * options.seconds);
        results.get(endpoint)![target].push(result);
        console.log(
          `round ${round + 1} ${endpoint.name.padEnd(28)} ${target.padEnd(9)} ${fmt(result.requestsPerSecond).padStart(6)} req/s  p50 ${fmt(result.p50Ms, 2)} ms  p99 ${fmt(result.p99Ms, 2)} ms  cpu ${fmt(result.cpuMsPerRequest, 3)} ms/req${result.failures ? `  ${result.failures} failed` : ''}`,
        );
      }
    }
  }
  for (const [endpoint, result] of results) {
    summary(
      `${endpoint.method} ${endpoint.path} (${endpoint.name}, ${endpoint.connections} connections)`,
      result,
    );
  }
  console.log(
    `\ngateway RSS: ${fmt(rssAfterWarmUp)} MB after warm-up, ${fmt(servers.gateway.rssMb())} MB after the rounds`,
  );
  return results;
}

export async function benchGateway(options: GatewayBenchOptions): Promise<void> {
  const env = await benchEnvironment('bench');
  const servers: Partial<Record<Target, Started>> = {};
  let otlpSink: Started | undefined;
  const db = createReadModelClient(env.databaseUrl, { poolSize: 2 });
  let profileDir: string | undefined;
  let measured = false;
  try {
    if (options.profile) profileDir = makeTempDir('gateway-profile-');
    console.log(`seeding ${options.members} members; load generator: ${loadGenerator}`);
    await seedMembers(env.databaseUrl, options.members);
    const client = await createBenchClient(db);
    const bound = await createBenchClient(db, 1);
    const basic = await createBenchClient(db, null, ['basic']);
    const gatewayEnv = {
      DATABASE_URL: env.databaseUrl,
      REDIS_URL: env.redisUrl,
      REDIS_PREFIX: env.redisPrefix,
      // The token endpoint's round measures a token request's cost, hundreds a minute for one
      // client: past the per-client issuance limit it would measure 429s.
      TOKEN_ISSUE_PER_MINUTE: '1000000',
    };
    servers.gateway = await startGateway(gatewayEnv, { profileDir });
    servers.baseline = await startBaseline(env.databaseUrl);
    const compared = ENDPOINTS.some((e) => e.uncounted && e.name.includes(options.endpoint ?? ''));
    if (compared) {
      servers.uncounted = await startGateway(
        { ...gatewayEnv, USAGE_COUNTING: 'off' },
        { built: true },
      );
      servers.unrecorded = await startGateway(
        { ...gatewayEnv, RECIPIENTS_RECORDING: 'off' },
        { built: true },
      );
      // Tracing on, as docs/operations/run.md "Traces" sets it: the endpoint alone, every other OTEL_*
      // variable the SDK's default (every request sampled, spans sent every 5 s).
      otlpSink = await startOtlpSink();
      servers.traced = await startGateway(
        { ...gatewayEnv, OTEL_EXPORTER_OTLP_ENDPOINT: otlpSink.url },
        { built: true },
      );
    }
    const token = await issueToken(servers.gateway, client.client_key, client.client_secret);
    const boundToken = await issueToken(servers.gateway, bound.client_key, bound.client_secret);
    const basicToken = await issueToken(servers.gateway, basic.client_key, basic.client_secret);
    const who = { ...client, token, boundToken, basicToken };
    const results = await measure(
      options,
      { ...servers, gateway: servers.gateway, baseline: servers.baseline },
      who,
    );
    await printTargets(results, servers.gateway, token, options.members);
    const detail = [...results].find(([endpoint]) => endpoint.name === 'members detail')?.[1];
    if (detail) {
      await benchFeed(servers.gateway, token, median(detail.gateway.map((r) => r.p99Ms)));
    }
    // The token sections run unless --endpoint names another section.
    const section = (name: string) => name.includes(options.endpoint ?? '');
    if (section('token flood'))
      await benchTokenFlood(servers.gateway, token, env.databaseUrl, options.seconds);
    if (section('token storm')) {
      const stormEnv: Record<string, string> = { ...gatewayEnv };
      delete stormEnv.TOKEN_ISSUE_PER_MINUTE;
      await benchTokenStorm({ db, gatewayEnv: stormEnv, seconds: options.seconds, profileDir });
    }
    if (options.soak > 0) await soak(options.soak, servers.gateway, who);
    measured = true;
  } finally {
    await releaseInTurn(
      () => Promise.all(Object.values(servers).map((s) => s.stop())),
      // After the traced gateway, whose drain sends the spans it still holds.
      () => otlpSink?.stop(),
      () => db.$disconnect(),
      () => env.destroy(),
      // The profile is written as the gateway exits: read it, then remove it.
      () => profileDir && measured && printProfileSplit(profileDir),
      () => profileDir && removeTempDir(profileDir),
    );
  }
}
