// The console's and the portal's own error pages: a path no page serves (signed in or not: the
// sign-in page is for the pages that exist), a form too large to read and a page that fails answer
// HTML in the area's frame with their status, never the API's JSON nor a stack trace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readModelPool } from '#common/databases.js';
import { ConsoleBrowser, type PageAnswer } from '../support/console-session.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { createTestClient, startGateway, type RunningGateway } from '../support/gateway.js';
import { partnerSignedIn } from '../support/portal-session.js';

let env: TestEnvironment;
let gateway: RunningGateway;
let operator: ConsoleBrowser;
let partner: ConsoleBrowser;

beforeAll(async () => {
  env = await createTestEnvironment();
  gateway = await startGateway(env);
  operator = new ConsoleBrowser(gateway);
  await operator.signIn(env.redisPrefix);
  const client = await createTestClient(gateway.db, { scopes: ['members:read'] });
  partner = await partnerSignedIn(gateway, env.redisPrefix, client);
});

afterAll(async () => {
  await gateway?.close();
  await env?.destroy();
});

/** An HTML page of the area, not the API's JSON body. */
function expectAreaPage(answer: PageAnswer, status: number, area: string, says: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
  expect(answer.html).toMatch(/^<!doctype html>/i);
  expect(answer.html).toContain(area);
  expect(answer.html).toContain(says);
  expect(answer.html).not.toContain('"success"');
  expect(answer.html).not.toMatch(/at \S+ \(|node_modules/);
}

/** The paths no page serves, each answered with the area's 404 page. */
const UNKNOWN = {
  console: ['/console/no-such-page', '/console/clients/x/y/z'],
  portal: ['/portal/no-such-page', '/portal/webhooks/1/x/y'],
};

/** Each of the area's unknown paths, opened by `browser`, answers the area's HTML 404. */
async function expectNotFound(browser: ConsoleBrowser, area: 'console' | 'portal') {
  const name = area === 'console' ? 'Console' : 'Partner portal';
  for (const path of UNKNOWN[area]) {
    expectAreaPage(await browser.get(path), 404, name, 'There is no such page here');
  }
}

describe('error pages of the console and the portal', () => {
  it('when a signed-in operator or partner opens a path no page serves, then the area answers its HTML 404', async () => {
    await expectNotFound(operator, 'console');
    await expectNotFound(partner, 'portal');
  });

  it('when a signed-out visitor opens a path no page serves, then the area answers its HTML 404; a page that needs a session still its sign-in page', async () => {
    const visitor = new ConsoleBrowser(gateway);
    await expectNotFound(visitor, 'console');
    await expectNotFound(visitor, 'portal');
    const signIn = await visitor.get('/console/clients');
    expectAreaPage(signIn, 401, 'Console', 'npm run console -- link');
    expectAreaPage(
      await visitor.get('/portal/usage'),
      401,
      'Partner portal',
      'Sign in with the link your API operator made for you',
    );
    expect(visitor.setCookies).toEqual([]);
  });

  it('when a form is too large to read, then the area answers 413 with its page', async () => {
    const answer = await operator.post('/console/members', { q: 'x'.repeat(40_000) });
    expectAreaPage(answer, 413, 'Console', 'The request could not be read');
  });

  it('when a page fails (its table gone), then the area answers its HTML 500 and the page works again after', async () => {
    const pool = readModelPool(gateway.db);
    await pool.query('ALTER TABLE operator_audit RENAME TO operator_audit_away');
    try {
      expectAreaPage(await operator.get('/console/audit'), 500, 'Console', 'Something went wrong');
    } finally {
      await pool.query('ALTER TABLE operator_audit_away RENAME TO operator_audit');
    }
    expect((await operator.get('/console/audit')).status).toBe(200);
  });
});
