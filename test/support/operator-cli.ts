// The operator's command-line tools as an operator runs them: `npm run <tool> -- ...`, a process of
// its own against the test environment's databases and Redis (where the tools announce client
// changes to the gateways' caches). A failing command rejects with its exit code and stderr.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { TEST_SECRETS_KEY, type TestEnvironment } from './environment.js';

const run = promisify(execFile);

/** Runs `npm run <tool> -- ...args` and returns its standard output. */
export function operatorCli(
  env: TestEnvironment,
  tool: 'clients' | 'webhooks' | 'usage' | 'console' | 'audit',
  ...args: string[]
): Promise<string> {
  return operatorCliWith(env, {}, tool, ...args);
}

/** The same, with operator variables of its own (SECRETS_KEY...). */
export async function operatorCliWith(
  env: TestEnvironment,
  variables: Record<string, string>,
  tool: 'clients' | 'webhooks' | 'usage' | 'console' | 'audit' | 'sync:verify',
  ...args: string[]
): Promise<string> {
  const { stdout } = await run('npm', ['run', '--silent', tool, '--', ...args], {
    env: {
      ...process.env,
      DATABASE_URL: env.databaseUrl,
      LEGACY_DATABASE_URL: env.legacyUrl,
      REDIS_URL: env.redisUrl,
      REDIS_PREFIX: env.redisPrefix,
      SECRETS_KEY: TEST_SECRETS_KEY,
      ...variables,
    },
  });
  return stdout;
}
