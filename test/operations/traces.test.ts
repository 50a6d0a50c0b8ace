// OTEL_EXPORTER_OTLP_ENDPOINT: with it set, the gateway (its compiled entry point, as production
// starts it) sends each request's trace to that OTLP receiver, the server span with its route and
// the spans of the queries and Redis commands the request made, and its log line names the trace;
// a member update's trace is followed into the worker, whose sync run reading the row and whose
// webhook try carrying its change are linked to it (docs/decisions/0017-traces.md); with it
// unset, no OpenTelemetry module is loaded at all (docs/operations/run.md, "Traces").
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productionCommand } from '../../scripts/production-command.js';
import { createReadModelClient } from '#common/databases.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { bearer, createTestClient, getJson, postJson } from '../support/gateway.js';
import { memberApi, randomPhone, randomTcNo } from '../support/member-writes.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { environmentVariables, startProcess, type RunningProcess } from '../support/processes.js';
import { syncOnce } from '../support/sync-once.js';
import { startReceiver as startPartner } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';

/** A span as the OTLP/HTTP JSON exporter sends it, with its process's service.name. */
interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
  /** The spans it follows from, in other traces. */
  links?: { traceId: string; spanId: string }[];
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpTraces {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: (Omit<ReceivedSpan, 'service' | 'attributes'> & {
        attributes?: OtlpAttribute[];
      })[];
    }[];
  }[];
}

const attributesOf = (list: OtlpAttribute[] = []) =>
  Object.fromEntries(list.map(({ key, value }) => [key, Object.values(value)[0]]));

/** A plain OTLP/HTTP receiver: what the exporter POSTs, by path, and the spans it carried. */
async function startReceiver() {
  const paths: string[] = [];
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      paths.push(`${req.method} ${req.url}`);
      if (req.url === '/v1/traces') {
        const traces = JSON.parse(body) as OtlpTraces;
        for (const resource of traces.resourceSpans ?? []) {
          const service = String(attributesOf(resource.resource?.attributes)['service.name']);
          for (const scope of resource.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              spans.push({ ...span, service, attributes: attributesOf(span.attributes) });
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    paths,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let env: TestEnvironment;
let memberId: number;
let branchId: number;
let clientCredentials: { client_key: string; client_secret: string };
/**
 * The exporter's batch is sent only when the process stops: whatever the receiver holds then was
 * flushed by the drain (docs/operations/run.md, "Traces"), not sent on the way by a timer or a full batch.
 */
const ONLY_ON_STOP = {
  OTEL_BSP_SCHEDULE_DELAY: '600000',
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '100000',
  OTEL_BSP_MAX_QUEUE_SIZE: '100000',
};

const probeDir = mkdtempSync(join(tmpdir(), 'traces-'));

beforeAll(async () => {
  env = await createTestEnvironment();
  const dashboard = await LegacyDashboard.connect(env.legacyUrl);
  branchId = await dashboard.insertBranch({ name: 'Kadıköy' });
  memberId = await dashboard.insertMember({
    branch_id: branchId,
    full_name: 'İz',
    surname: 'Sürer',
  });
  await dashboard.close();
  await syncOnce(env);
  const db = createReadModelClient(env.databaseUrl);
  clientCredentials = await createTestClient(db, {
    scopes: ['members:list', 'members:read', 'members:write', 'webhooks:manage'],
  });
  await db.$disconnect();
});

afterAll(async () => {
  await env?.destroy();
});

/**
 * The compiled gateway, started as production starts it, with a probe that records every module
 * it imports into `modulesFile`.
 */
async function startCompiledGateway(variables: Record<string, string>, modulesFile: string) {
  const probe = join(process.cwd(), 'test/support/resolved-modules.mjs');
  const gateway = startProcess(
    'gateway',
    {
      ...environmentVariables(env),
      // Member writes: the gateway's own MySQL user.
      LEGACY_DATABASE_URL: env.legacyGatewayUrl,
      ...variables,
      NODE_OPTIONS: `--import=${probe}`,
      RESOLVED_MODULES_FILE: modulesFile,
    },
    { args: productionCommand('gateway'), cwd: process.cwd() },
  );
  const line = await gateway.waitForLine((l) => l.msg === 'gateway listening');
  return { gateway, url: `http://127.0.0.1:${line.port as number}` };
}

/** The compiled worker, started as production starts it, with the same probe as the gateway. */
async function startCompiledWorker(variables: Record<string, string>, modulesFile: string) {
  const probe = join(process.cwd(), 'test/support/resolved-modules.mjs');
  const worker = startProcess(
    'worker',
    {
      ...environmentVariables(env),
      ...variables,
      NODE_OPTIONS: `--import=${probe}`,
      RESOLVED_MODULES_FILE: modulesFile,
    },
    { args: productionCommand('worker'), cwd: process.cwd() },
  );
  await worker.waitForLine((l) => l.msg === 'sync worker started');
  return worker;
}

/** A partner's webhook URL whose query carries a credential of the partner's. */
const PARTNER_TOKEN = 'partner-token-5f1c';
const PARTNER_PATH = `/hook?token=${PARTNER_TOKEN}`;
/** Polls, dispatches and sends within a few hundred ms, so a test waits on what it checks. */
const WORKER_PACE = {
  SYNC_INTERVAL_MS: '200',
  WEBHOOK_DISPATCH_INTERVAL_MS: '50',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
};

/**
 * One member update through the compiled gateway, followed by the compiled worker: its sync
 * polls the row, its dispatch makes the partner's event, its delivery sends it. Waits for the
 * partner's event, then for `settled`, then stops both processes as an orchestrator does.
 */
async function memberUpdateFollowed(
  variables: Record<string, string>,
  name: string,
  settled: (traceId: string | undefined) => void,
) {
  const secrets = new Map<string, string>();
  const partner = await startPartner({ secrets });
  const modules = {
    gateway: join(probeDir, `${name}-gateway.txt`),
    worker: join(probeDir, `${name}-worker.txt`),
  };
  const stopped: RunningProcess[] = [];
  try {
    const { gateway, url } = await startCompiledGateway(
      { ...variables, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
      modules.gateway,
    );
    stopped.push(gateway);
    const { body: token } = await postJson(`${url}/api/v1/auth/token`, clientCredentials);
    const accessToken = (token.data as { access_token: string }).access_token;
    const subscribed = await postJson(
      `${url}/api/v1/webhooks`,
      { url: partner.url(PARTNER_PATH) },
      bearer(accessToken).headers,
    );
    expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(201);
    secrets.set(PARTNER_PATH, subscribed.body.data.secret as string);

    const phone = randomPhone();
    const updated = await memberApi(url, accessToken).update(memberId, { phone });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    const line = await gateway.waitForLine(
      (l) => l.msg === 'request' && l.request_id === updated.headers.get('x-request-id'),
    );
    // Started once the gateway has put the written row and its trace in the read model: a sync
    // pass that read the row first would have no write to link to.
    const worker = await startCompiledWorker({ ...variables, ...WORKER_PACE }, modules.worker);
    stopped.push(worker);
    const event = await eventually(() => {
      const found = partner.received.find(
        (e) => (e.parsed.data as { type: string; id: number }).id === memberId,
      );
      expect(found).toBeDefined();
      return found!;
    }, 15_000);
    expect(event.verified).toBe(true);
    expect(event.parsed.type).toBe('members.upsert');
    await eventually(() => settled(line.trace_id as string | undefined), 15_000);

    gateway.child.kill('SIGTERM');
    worker.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    expect(await worker.exited).toBe(0);
    expect(gateway.stderr()).toBe('');
    expect(worker.stderr()).toBe('');
    return { phone, line, modules };
  } finally {
    // After a failure: nothing left running (kill does nothing to a process that has exited).
    for (const running of stopped) running.kill();
    await partner.close();
  }
}

/** Shaped as a sign-in link's token (32 bytes, base64url). */
const SIGN_IN_TOKEN = 'sEcReTsIgNiNtOkEn0123456789abcdefghijklmnop';
const PARTNER_TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARTNER_TRACEPARENT = `00-${PARTNER_TRACE_ID}-b7ad6b7169203331-01`;
const newMember = () => ({
  full_name: 'Yeni',
  surname: 'Üye',
  phone: randomPhone(),
  branch_id: branchId,
});

/**
 * Issues a token, reads the member, creates one, and stops the gateway as an orchestrator does;
 * resolves with each request's log line.
 */
async function callAndStop(gateway: RunningProcess, url: string) {
  const { body: token } = await postJson(`${url}/api/v1/auth/token`, clientCredentials);
  const accessToken = (token.data as { access_token: string }).access_token;
  const api = memberApi(url, accessToken);
  const read = await api.get(memberId);
  expect(read.status).toBe(200);
  const search = await getJson(`${url}/api/v1/members?search=S%C3%BCrer`, bearer(accessToken));
  expect(search.body.data).toHaveLength(1);
  const created = await api.create({
    full_name: 'Yeni',
    surname: 'Üye',
    phone: randomPhone(),
    branch_id: branchId,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  // A partner's trace context is not joined (OTEL_TRUST_INCOMING unset).
  const linked = await getJson(`${url}/api/v1/members/${memberId}`, {
    headers: { ...bearer(accessToken).headers, traceparent: PARTNER_TRACEPARENT },
  });
  expect(linked.status).toBe(200);
  // A write refused by the unique index (the holder of the number was deleted, so the API's
  // own duplicate check lets it through): MySQL's message quotes the number.
  const tcNo = randomTcNo();
  const holder = await api.create({ ...newMember(), tc_no: tcNo });
  expect(holder.status, JSON.stringify(holder.body)).toBe(201);
  const dashboard = await LegacyDashboard.connect(env.legacyUrl);
  await dashboard.update('members', holder.body.data.id as number, { is_deleted: 1 });
  await dashboard.close();
  const duplicate = await api.create({ ...newMember(), tc_no: tcNo });
  expect(duplicate.status, JSON.stringify(duplicate.body)).toBe(409);
  // Sign-in links' paths: a token that signs someone in (made up here; the path is what counts).
  for (const area of ['console', 'portal'])
    expect((await fetch(`${url}/${area}/sign-in/${SIGN_IN_TOKEN}`)).status).toBe(410);
  gateway.child.kill('SIGTERM');
  expect(await gateway.exited).toBe(0);
  const lineOf = (answer: { headers: Headers }) =>
    gateway.lines.find(
      (l) => l.msg === 'request' && l.request_id === answer.headers.get('x-request-id'),
    );
  return { read: lineOf(read), create: lineOf(created), linked: lineOf(linked), tcNo };
}

const importedOpenTelemetry = (modulesFile: string) =>
  readFileSync(modulesFile, 'utf8')
    .split('\n')
    .filter((url) => url.includes('/node_modules/@opentelemetry/'));

describe('traces', () => {
  it(
    "when OTEL_EXPORTER_OTLP_ENDPOINT is set, then a member read is one trace (route, queries, Redis), a write's trace holds its MySQL statements, and SIGTERM flushes them",
    { timeout: 60_000 },
    async () => {
      const receiver = await startReceiver();
      try {
        const modulesFile = join(probeDir, 'set.txt');
        const { gateway, url } = await startCompiledGateway(
          { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...ONLY_ON_STOP },
          modulesFile,
        );
        const lines = await callAndStop(gateway, url);
        expect(gateway.stderr()).toBe('');

        const server = receiver.spans.find(
          (s) => s.attributes['http.route'] === '/api/v1/members/:id' && !s.parentSpanId,
        );
        expect(server, JSON.stringify(receiver.spans.map((s) => s.name))).toBeDefined();
        expect(server!.service).toBe('gateway');
        const inTrace = receiver.spans.filter((s) => s.traceId === server!.traceId);
        const names = inTrace.map((s) => s.name);
        // The member's row, read on the pg driver (directly or under Prisma).
        expect(
          inTrace.some(
            (s) =>
              s.attributes['db.system.name'] === 'postgresql' ||
              s.attributes['db.system'] === 'postgresql',
          ),
          names.join(', '),
        ).toBe(true);
        // The rate limit's and the token's Redis commands.
        expect(
          inTrace.some(
            (s) =>
              s.attributes['db.system'] === 'redis' || s.attributes['db.system.name'] === 'redis',
          ),
          names.join(', '),
        ).toBe(true);
        // The request's log line carries the trace beside the request id.
        expect(lines.read?.trace_id).toBe(server!.traceId);

        // A member write: its statements on the mariadb driver, in the write's trace.
        const write = receiver.spans.find(
          (s) =>
            s.attributes['http.route'] === '/api/v1/members' &&
            s.attributes['http.request.method'] === 'POST' &&
            !s.parentSpanId,
        );
        expect(write).toBeDefined();
        expect(lines.create?.trace_id).toBe(write!.traceId);
        const legacy = receiver.spans.filter(
          (s) => s.traceId === write!.traceId && s.attributes['db.system.name'] === 'mysql',
        );
        expect(legacy.map((s) => s.name)).toContain('mysql START');
        // Statements as written: the member's values are never in a span.
        expect(JSON.stringify(legacy)).not.toContain('Yeni');
        // No member's data, no credential in any span: a query string keeps its parameters'
        // names, a Redis command its name.
        const searched = receiver.spans.find((s) => s.attributes['url.path'] === '/api/v1/members');
        expect(searched?.attributes['url.query']).toBe('search=');
        const everything = JSON.stringify(receiver.spans);
        for (const secret of [
          'Sürer',
          'S%C3%BCrer',
          clientCredentials.client_key,
          lines.tcNo,
          SIGN_IN_TOKEN,
        ]) {
          expect(everything).not.toContain(secret);
        }
        // A sign-in link's request is traced under its route's template.
        const paths = receiver.spans.map((s) => s.attributes['url.path']);
        expect(paths).toContain('/console/sign-in/:token');
        expect(paths).toContain('/portal/sign-in/:token');
        // The partner's traceparent began no trace of ours: a new one, linked to it.
        const linked = receiver.spans.find((s) => s.traceId === lines.linked?.trace_id);
        expect(linked).toBeDefined();
        expect(linked!.traceId).not.toBe(PARTNER_TRACE_ID);
        expect(receiver.spans.some((s) => s.traceId === PARTNER_TRACE_ID)).toBe(false);
        expect(
          receiver.spans.some((s) => s.links?.some((l) => l.traceId === PARTNER_TRACE_ID)),
        ).toBe(true);

        // Traces only: metrics and logs have their own ways out.
        expect(new Set(receiver.paths)).toEqual(new Set(['POST /v1/traces']));
        // The probe does see OpenTelemetry when it is loaded (so the test below can fail).
        expect(importedOpenTelemetry(modulesFile)).not.toEqual([]);
      } finally {
        await receiver.close();
      }
    },
  );

  it(
    'when OTEL_EXPORTER_OTLP_ENDPOINT is set, then the worker sends the spans of its legacy reads, flushed on SIGTERM',
    { timeout: 60_000 },
    async () => {
      const receiver = await startReceiver();
      try {
        const worker = startProcess(
          'worker',
          {
            ...environmentVariables(env),
            SYNC_INTERVAL_MS: '200',
            OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
            ...ONLY_ON_STOP,
          },
          { args: productionCommand('worker'), cwd: process.cwd() },
        );
        await worker.waitForLine((l) => l.msg === 'sync worker started');
        // A few sync runs; their spans wait in the exporter's batch until the stop flushes them.
        await new Promise((resolve) => setTimeout(resolve, 1000));
        worker.child.kill('SIGTERM');
        expect(await worker.exited).toBe(0);
        expect(worker.stderr()).toBe('');
        const reads = receiver.spans.filter(
          (s) => s.service === 'worker' && s.attributes['db.system.name'] === 'mysql',
        );
        expect(reads.map((s) => s.name)).toContain('mysql SELECT');
      } finally {
        await receiver.close();
      }
    },
  );

  it(
    "when OTEL_EXPORTER_OTLP_ENDPOINT is set, then a member update's trace holds its MySQL, PostgreSQL and Redis spans, the worker's sync run of the row and the webhook try are linked to it, and the partner's URL keeps no query value",
    { timeout: 90_000 },
    async () => {
      const receiver = await startReceiver();
      try {
        const linkedTo = (traceId: string | undefined, name: string) =>
          receiver.spans.filter(
            (s) =>
              s.service === 'worker' &&
              s.name === name &&
              s.links?.some((link) => link.traceId === traceId),
          );
        const { phone, line } = await memberUpdateFollowed(
          // Sent as they end: the test waits for the worker's spans.
          { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '100' },
          'update-set',
          (traceId) => {
            expect(traceId).toBeDefined();
            expect(linkedTo(traceId, 'sync-table members')).not.toEqual([]);
            expect(linkedTo(traceId, 'webhook delivery')).not.toEqual([]);
          },
        );

        // The gateway's request span: the update's trace, with its statements on all three.
        const write = receiver.spans.find(
          (s) =>
            s.attributes['http.route'] === '/api/v1/members/:id' &&
            s.attributes['http.request.method'] === 'PUT' &&
            !s.parentSpanId,
        );
        expect(write, JSON.stringify(receiver.spans.map((s) => s.name))).toBeDefined();
        expect(write!.service).toBe('gateway');
        expect(line.trace_id).toBe(write!.traceId);
        const inTrace = receiver.spans.filter((s) => s.traceId === write!.traceId);
        const system = (s: ReceivedSpan) =>
          s.attributes['db.system.name'] ?? s.attributes['db.system'];
        const names = inTrace.map((s) => s.name).join(', ');
        expect(
          inTrace.some((s) => system(s) === 'mysql'),
          names,
        ).toBe(true);
        expect(
          inTrace.some((s) => system(s) === 'postgresql'),
          names,
        ).toBe(true);
        expect(
          inTrace.some((s) => system(s) === 'redis'),
          names,
        ).toBe(true);
        // The worker's spans are in traces of their own, linked to the write's, never in it.
        expect(inTrace.every((s) => s.service === 'gateway')).toBe(true);

        // The sync run reading the row: its legacy read is its child.
        const [sync] = linkedTo(write!.traceId, 'sync-table members');
        expect(sync!.traceId).not.toBe(write!.traceId);
        expect(
          receiver.spans.some(
            (s) => s.parentSpanId === sync!.spanId && s.attributes['db.system.name'] === 'mysql',
          ),
        ).toBe(true);

        // The webhook try: its POST is its child, the partner's URL without the token's value.
        const [delivery] = linkedTo(write!.traceId, 'webhook delivery');
        const post = receiver.spans.find((s) => s.parentSpanId === delivery!.spanId);
        expect(post?.attributes['http.request.method']).toBe('POST');
        // The partner's URL keeps neither its path nor its query.
        expect(post?.attributes['url.full']).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(JSON.stringify(post)).not.toContain('/hook');
        const everything = JSON.stringify(receiver.spans);
        expect(everything).not.toContain(PARTNER_TOKEN);
        expect(everything).not.toContain(phone);
      } finally {
        await receiver.close();
      }
    },
  );

  it(
    'when OTEL_EXPORTER_OTLP_ENDPOINT is unset, then a member update, its sync and its webhook load no OpenTelemetry module in either process and send nothing',
    { timeout: 90_000 },
    async () => {
      const receiver = await startReceiver();
      try {
        const { line, modules } = await memberUpdateFollowed(
          { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces` },
          'update-unset',
          () => undefined,
        );
        expect(line).toBeDefined();
        expect(line).not.toHaveProperty('trace_id');
        expect(importedOpenTelemetry(modules.gateway)).toEqual([]);
        expect(importedOpenTelemetry(modules.worker)).toEqual([]);
        expect(receiver.paths).toEqual([]);
      } finally {
        await receiver.close();
      }
    },
  );

  it(
    'when OTEL_EXPORTER_OTLP_ENDPOINT is unset, then no OpenTelemetry module is loaded and nothing is sent',
    { timeout: 60_000 },
    async () => {
      const receiver = await startReceiver();
      try {
        const modulesFile = join(probeDir, 'unset.txt');
        // The receiver is named in the variables an operator might leave set beside it.
        const { gateway, url } = await startCompiledGateway(
          { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces` },
          modulesFile,
        );
        const lines = await callAndStop(gateway, url);
        expect(lines.read).toBeDefined();
        expect(lines.read).not.toHaveProperty('trace_id');
        expect(importedOpenTelemetry(modulesFile)).toEqual([]);
        expect(receiver.paths).toEqual([]);
      } finally {
        await receiver.close();
      }
    },
  );
});
