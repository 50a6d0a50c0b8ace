// The operator's alert rules and dashboard (ops/, docs/operations/incidents.md "Alerts and dashboard"):
// promtool's own tests of the rules, a firing and a quiet case for every rule, and every query of
// both naming only metrics that a running gateway and worker export.
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { environmentVariables, startProcess, type RunningProcess } from '../support/processes.js';
import { eventually } from '../support/eventually.js';

const RULES = 'ops/prometheus/alerts.yml';
const RULE_TESTS = 'ops/prometheus/alerts.test.yml';
const DASHBOARD = 'ops/grafana/dashboard.json';

const hasPromtool = spawnSync('promtool', ['--version']).status === 0;
const missing = ' (skipped: promtool is not installed; apt-get install -y prometheus)';
if (!hasPromtool) console.warn(`ops-alerts.test.ts${missing}`);

interface RuleFile {
  groups: { rules: { alert: string; expr: string }[] }[];
}
interface RuleTests {
  tests: { name: string; alert_rule_test: { alertname: string; exp_alerts?: unknown[] }[] }[];
}
interface Dashboard {
  panels: { id: number; type: string; title: string; targets?: { expr: string }[] }[];
}

const rules = (parse(readFileSync(RULES, 'utf8')) as RuleFile).groups.flatMap((g) => g.rules);
const ruleTests = (parse(readFileSync(RULE_TESTS, 'utf8')) as RuleTests).tests;
const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;

/**
 * The metric names a PromQL expression reads: what is left once strings, label matchers, ranges,
 * grouping label lists, function calls and operators are taken out.
 */
function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = bare.match(/(?<![\w:.])[a-zA-Z_:][\w:]*(?![\w:]|\s*\()/g) ?? [];
  return names.filter((n) => !['and', 'or', 'unless', 'bool', 'offset'].includes(n));
}

/** Every series name the exposition can hold, from its TYPE lines (labelled metrics included). */
function exportedNames(exposition: string): string[] {
  return [...exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) =>
    type === 'histogram'
      ? [`${name}_bucket`, `${name}_sum`, `${name}_count`]
      : type === 'summary'
        ? [name!, `${name}_sum`, `${name}_count`]
        : [name!],
  );
}

describe('alert rules', () => {
  it.skipIf(!hasPromtool)(
    `when promtool tests the rules, then every test passes${hasPromtool ? '' : missing}`,
    async () => {
      const { stdout } = await promisify(execFile)('promtool', ['test', 'rules', RULE_TESTS]);
      expect(stdout).toContain('SUCCESS');
    },
  );

  it('when the rule tests are read, then every rule fires in one and stays quiet on the healthy fleet', () => {
    const [healthy, ...firing] = ruleTests;
    const names = rules.map((r) => r.alert).sort();
    const quiet = healthy!.alert_rule_test.filter((t) => (t.exp_alerts ?? []).length === 0);
    expect(quiet.map((t) => t.alertname).sort()).toEqual(names);
    const fired = firing.flatMap((t) =>
      t.alert_rule_test.filter((a) => (a.exp_alerts ?? []).length > 0).map((a) => a.alertname),
    );
    expect([...new Set(fired)].sort()).toEqual(names);
  });
});

const scrape = async (port: unknown) =>
  (await fetch(`http://127.0.0.1:${port as number}/metrics`)).text();

describe('queries against what the processes export', () => {
  let env: TestEnvironment;
  let processes: RunningProcess[] = [];
  let exported: Set<string>;
  let gatewayUrl: string;
  let gatewayPort: unknown;

  beforeAll(async () => {
    // Following the binary log, so that the worker exports the sync_binlog_* gauges too.
    env = await createTestEnvironment({ syncSource: 'binlog' });
    const variables = environmentVariables(env);
    const gateway = startProcess('gateway', variables);
    const worker = startProcess('worker', variables);
    processes = [gateway, worker];
    gatewayUrl = `http://127.0.0.1:${
      (await gateway.waitForLine((l) => l.msg === 'gateway listening')).port as number
    }`;
    gatewayPort = (await gateway.waitForLine((l) => l.msg === 'metrics listening')).port;
    const workerPort = (await worker.waitForLine((l) => l.msg === 'sync worker started'))
      .metricsPort;
    exported = await eventually(
      async () => {
        const names = new Set(
          [await scrape(gatewayPort), await scrape(workerPort)].flatMap(exportedNames),
        );
        expect(names).toContain('sync_binlog_seconds_since_event');
        return names;
      },
      30_000,
      250,
    );
  }, 120_000);

  afterAll(async () => {
    for (const p of processes) p.kill();
    await Promise.all(processes.map((p) => p.exited));
    await env?.destroy();
  });

  it('when the names of a query are read, then strings, labels, ranges and functions are not among them', () => {
    expect(
      metricNamesIn(
        'histogram_quantile(0.99, sum by (le) (rate(a_bucket{route!~"x|y"}[$__rate_interval]))) / ' +
          'on (job) b_total and max_over_time(c{source="binlog"}[30m]) == 1',
      ),
    ).toEqual(['a_bucket', 'b_total', 'c']);
  });

  it('when token requests fail, then the gateway labels them with the routes and statuses the token rules select', async () => {
    const post = (path: string, body: string, type: string) =>
      fetch(`${gatewayUrl}${path}`, { method: 'POST', headers: { 'content-type': type }, body });
    const json = 'application/json';
    const answers = await Promise.all([
      post('/api/v1/auth/token', '{"client_key":"ck_unknown","client_secret":"wrong"}', json),
      post('/api/v1/auth/refresh', '{"refresh_token":"unknown"}', json),
      post(
        '/oauth/token',
        'grant_type=client_credentials&client_id=ck_unknown&client_secret=wrong',
        'application/x-www-form-urlencoded',
      ),
    ]);
    // Credentials in the form: the standard endpoint answers 400 invalid_client (RFC 6749, 5.2).
    expect(answers.map((a) => a.status)).toEqual([401, 401, 400]);
    const exposition = await scrape(gatewayPort);
    const ruleText = readFileSync(RULES, 'utf8');
    for (const [route, status] of [
      ['/api/v1/auth/token', 401],
      ['/api/v1/auth/refresh', 401],
      ['/oauth/token', 400],
    ] as const) {
      expect(exposition).toMatch(
        new RegExp(
          `gateway_http_request_duration_seconds_count\\{[^}]*route="${route}",status="${status}"`,
        ),
      );
      expect(ruleText).toContain(route);
    }
    expect(ruleText).toContain('status=~"400|401"');
  });

  it('when every alert rule is read, then each names metrics the gateway or the worker exports', () => {
    for (const rule of rules) {
      const names = metricNamesIn(rule.expr);
      expect(names, rule.alert).not.toHaveLength(0);
      for (const name of names) expect(exported, `${rule.alert}: ${name}`).toContain(name);
    }
  });

  it('when the dashboard is loaded, then every panel has queries, each naming metrics the gateway or the worker exports', () => {
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const panels = dashboard.panels.filter((p) => p.type !== 'row');
    expect(panels.length).toBeGreaterThan(20);
    for (const panel of panels) {
      expect(panel.targets ?? [], panel.title).not.toHaveLength(0);
      for (const { expr } of panel.targets ?? []) {
        const names = metricNamesIn(expr);
        expect(names, `${panel.title}: ${expr}`).not.toHaveLength(0);
        for (const name of names) expect(exported, `${panel.title}: ${name}`).toContain(name);
      }
    }
  });
});
