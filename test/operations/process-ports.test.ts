// Processes side by side on one host: with no port variables the gateway and the worker both
// start (the worker's metrics default apart from the gateway's), and a port that is taken ends a
// process with one log line naming the port and its variable, and a non-zero exit.
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  environmentVariables,
  startGatewayProcess,
  startProcess,
  type LogLine,
} from '../support/processes.js';

let env: TestEnvironment;
let taken: Server;
let takenPort: number;

beforeAll(async () => {
  env = await createTestEnvironment();
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '0.0.0.0', resolve));
  takenPort = (taken.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => taken?.close(resolve));
  await env?.destroy();
});

/** The test environment's variables, METRICS_PORT left unset as on a fresh host. */
function withoutMetricsPort(): Record<string, string> {
  const variables = environmentVariables(env);
  delete variables.METRICS_PORT;
  return variables;
}

describe('the gateway and the worker on one host', () => {
  it('when both start with no METRICS_PORT, then both run', async () => {
    const variables = withoutMetricsPort();
    const gateway = startProcess('gateway', variables);
    const worker = startProcess('worker', variables);
    try {
      const listening = await gateway.waitForLine((l) => l.msg === 'metrics listening');
      const started = await worker.waitForLine((l) => l.msg === 'sync worker started');
      expect([listening.port, started.metricsPort]).toEqual([9464, 9465]);
      await gateway.waitForLine((l) => l.msg === 'gateway listening');
      expect([gateway.child.exitCode, worker.child.exitCode]).toEqual([null, null]);
    } finally {
      gateway.kill();
      worker.kill();
      await Promise.all([gateway.exited, worker.exited]);
    }
  });
});

describe('a port that is taken', () => {
  it.each([
    ['gateway', 'PORT'],
    ['gateway', 'METRICS_PORT'],
    ['worker', 'METRICS_PORT'],
  ] as const)(
    'when the %s is given a taken %s, then it says which and exits 1',
    async (kind, variable) => {
      const child = startProcess(kind, {
        ...environmentVariables(env),
        [variable]: String(takenPort),
      });
      try {
        expect(await child.exited).toBe(1);
        const fatal = child.lines.filter((l: LogLine) => (l.level ?? 0) >= 60);
        expect(fatal).toHaveLength(1);
        expect(fatal[0]).toMatchObject({ variable, port: takenPort });
        expect(String(fatal[0]!.msg)).toContain(`${variable}`);
        expect(String(fatal[0]!.msg)).toContain(String(takenPort));
        expect(child.stderr()).not.toMatch(/TypeError/);
      } finally {
        child.kill();
      }
    },
  );
});

describe('the request log of a running gateway', () => {
  it('when a request is answered and nothing follows, then its line is written within seconds, and one answered just before a stop is written too', async () => {
    const gateway = await startGatewayProcess(environmentVariables(env));
    try {
      const idle = await fetch(`${gateway.url}/api/v1`, {
        headers: { 'x-request-id': 'log-idle' },
      });
      expect(idle.status).toBe(200);
      // Lines are written in batches (common/logger.ts); a quiet gateway still writes its last.
      const line = await gateway.waitForLine((l) => l.request_id === 'log-idle', 5_000);
      expect(line).toMatchObject({ method: 'GET', route: '/api/v1', status: 200 });

      const last = await fetch(`${gateway.url}/api/v1/openapi.json`, {
        headers: { 'x-request-id': 'log-last' },
      });
      expect(last.status).toBe(200);
      gateway.child.kill('SIGTERM');
      expect(await gateway.exited).toBe(0);
      expect(gateway.lines.find((l) => l.request_id === 'log-last')).toMatchObject({
        route: '/api/v1/openapi.json',
        status: 200,
      });
    } finally {
      gateway.kill();
    }
  });
});
