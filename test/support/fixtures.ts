// The integration tests' common set-ups as vitest fixtures, one of each per file: a test (or a
// `test.beforeAll`) that names `env`, `gateway`, `client`, `token` or `fixture` gets it, made on
// the first such use and closed after the file's last test, in reverse order (the gateway before
// its environment).
// The integration project runs files in a shared process (vitest.config.ts, `isolate: false`):
// a file-scoped fixture's value and cleanup belong to its file, so no file sees another's.
import { test as base } from 'vitest';
import { createTestEnvironment } from './environment.js';
import { createTestClient, issueToken, startGateway } from './gateway.js';
import { startReadFixture } from './read-fixture.js';

/** `env`: the file's own databases, MySQL users and Redis prefix, dropped after the file. */
// eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's needs from this pattern
export const envTest = base.extend('env', { scope: 'file' }, async ({}, { onCleanup }) => {
  const env = await createTestEnvironment();
  onCleanup(() => env.destroy());
  return env;
});

/** `env`, and `gateway`: one gateway on it with these variables, closed after the file. */
export function gatewayTest(settings: Record<string, string> = {}) {
  return envTest.extend('gateway', { scope: 'file' }, async ({ env }, { onCleanup }) => {
    const gateway = await startGateway(env, settings);
    onCleanup(() => gateway.close());
    return gateway;
  });
}

/**
 * `env` and `gateway` as gatewayTest gives them; `client`: a test client on that gateway with these
 * options; `token`: an access token of that client. Each is made only when something names it.
 */
export function clientTest(
  settings: Record<string, string> = {},
  options: Parameters<typeof createTestClient>[1] = {},
) {
  return gatewayTest(settings)
    .extend('client', { scope: 'file' }, ({ gateway }) => createTestClient(gateway.db, options))
    .extend('token', { scope: 'file' }, ({ gateway, client }) => issueToken(gateway, client));
}

/**
 * `fixture`: the read fixture (test/support/read-fixture.ts), a gateway over seeded and synced
 * data with a client holding every scope, closed with its environment after the file.
 */
export const readFixtureTest = base.extend(
  'fixture',
  { scope: 'file' },
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's needs from this pattern
  async ({}, { onCleanup }) => {
    const fixture = await startReadFixture();
    onCleanup(() => fixture.close());
    return fixture;
  },
);
