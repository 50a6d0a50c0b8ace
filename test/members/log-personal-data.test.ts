// The logs never hold a member's personal data or a statement's parameters, a failed write's
// included: an audit record PostgreSQL did not take, and MySQL refusing a member write (its
// driver puts the statement and its parameters in the error, the server quotes a duplicate value).
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  createTestClient,
  issueToken,
  startGateway,
  type RunningGateway,
} from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { captureLogs, type LogCapture } from '../support/log-capture.js';
import { memberApi, randomPhone, randomTcNo, type MemberApi } from '../support/member-writes.js';

let env: TestEnvironment;
let gateway: RunningGateway;
let dashboard: LegacyDashboard;
let capture: LogCapture;
let api: MemberApi;
let branch: number;
let otherBranch: number;

beforeAll(async () => {
  env = await createTestEnvironment();
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  branch = await dashboard.insertBranch();
  otherBranch = await dashboard.insertBranch();
  capture = captureLogs('info');
  gateway = await startGateway(env, {}, { logger: capture.logger });
  const client = await createTestClient(gateway.db, { scopes: ['members:read', 'members:write'] });
  api = memberApi(gateway.url, await issueToken(gateway, client));
});

afterAll(async () => {
  await gateway?.close();
  await dashboard?.close();
  await env?.destroy();
});

/** A member whose every personal value is distinctive enough to be found in any log text. */
function person(branchId: number) {
  const n = Math.floor(Math.random() * 1e6);
  return {
    full_name: `Zeynepqx${n}`,
    surname: `Karaqoglu${n}`,
    phone: randomPhone(),
    tc_no: randomTcNo(),
    email: `zeynep.qx${n}@example.com`,
    address: `Papatya Sokak ${n}`,
    birth_date: `19${50 + (n % 50)}-0${1 + (n % 9)}-1${n % 10}`,
    branch_id: branchId,
  };
}

/** Each personal value as it could be written: the phone also without its leading 0. */
const personalValues = (member: Partial<ReturnType<typeof person>>) =>
  [
    member.full_name,
    member.surname,
    member.tc_no,
    member.phone,
    member.phone?.slice(1),
    member.email,
    member.address,
    member.birth_date,
  ].filter((value) => value !== undefined);

/** Where the log stood when the test began: each test looks only at what it caused. */
let logStart = 0;
beforeEach(() => {
  logStart = capture.text().length;
});

function expectNoPersonalData(member: Partial<ReturnType<typeof person>>, qrCode?: string) {
  const log = capture.text().slice(logStart);
  for (const value of [...personalValues(member), ...(qrCode ? [qrCode] : [])]) {
    expect(log.includes(value), `${value} is in the log`).toBe(false);
  }
}

/** A statement on the test's own read-model database, as its owner. */
async function onReadModel(sql: string) {
  const client = new pg.Client({ connectionString: env.databaseUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('personal data in the logs', () => {
  it('when the audit record of a write cannot be stored, then its log line names the write, not the member', async () => {
    await onReadModel('ALTER TABLE member_write_audit RENAME TO member_write_audit_away');
    const member = person(branch);
    try {
      const { status, body, headers } = await api.create(member);
      expect(status, JSON.stringify(body)).toBe(201);
      const lines = capture.lines();
      const unstored = lines.find((l) => l.msg === 'member write audit not stored; logged instead');
      expect(unstored, 'the write was audited in the log').toBeDefined();
      expectNoPersonalData(member, body.data.qr_code as string);
      // What the trail needs from the line: which write, by whom, and which fields it set.
      expect(unstored!.audit).toMatchObject({
        member_id: body.data.id,
        request_id: headers.get('x-request-id'),
        operation: 'create',
        changed_fields: expect.arrayContaining(['full_name', 'tc_no', 'phone']),
      });
    } finally {
      await onReadModel('ALTER TABLE member_write_audit_away RENAME TO member_write_audit');
    }
  });

  it("when MySQL refuses a write's statement, then the failure is logged without its parameters", async () => {
    // The gateway's own MySQL user loses SELECT on members: the first statements of a create,
    // the duplicate check by tc_no and phone among them, fail as they are sent.
    const user = decodeURIComponent(new URL(env.legacyGatewayUrl).username);
    const grant = `SELECT ON \`${env.name}\`.members`;
    await dashboard.query(`REVOKE ${grant} FROM '${user}'@'%'`);
    // Without a tc_no the statements are short enough for the driver to list their parameters.
    const member: Partial<ReturnType<typeof person>> = person(branch);
    delete member.tc_no;
    try {
      const { status, body } = await api.create(member);
      expect(status).toBe(500);
      const failed = capture.linesOf(body.request_id as string);
      expect(failed).toHaveLength(1);
      // The cause is still there for the operator: MySQL's error number and words, the statement.
      expect(failed[0]!.err).toMatchObject({
        errno: 1142,
        message: expect.stringMatching(/SELECT command denied/),
      });
      expectNoPersonalData(member);
      expect(capture.text().slice(logStart)).not.toMatch(/parameters:/);
    } finally {
      await dashboard.query(`GRANT ${grant} TO '${user}'@'%'`);
    }
  });

  it('when MySQL refuses a duplicate the dashboard does not check, then neither its value nor the parameters are logged', async () => {
    const first = person(branch);
    expect((await api.create(first)).status).toBe(201);
    // A unique index the gateway's rules do not know: MySQL quotes the duplicate value.
    await dashboard.query('CREATE UNIQUE INDEX uq_test_phone ON members (phone)');
    const second = { ...person(otherBranch), phone: first.phone };
    try {
      const { status, body } = await api.create(second);
      expect(status).toBe(500);
      const [failed] = capture.linesOf(body.request_id as string);
      expect(failed!.err).toMatchObject({ errno: 1062 });
      expectNoPersonalData(first);
      expectNoPersonalData(second);
    } finally {
      await dashboard.query('DROP INDEX uq_test_phone ON members');
    }
  });
});
