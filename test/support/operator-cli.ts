// The operator's command-line tools as an operator runs them: `npm run <tool> -- ...`, a process of
// its own against the test environment's databases and Redis (where the tools announce client
// changes to the gateways' caches). A failing command rejects with its exit code and stderr.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { TestEnvironment } from './environment.js';

const run = promisify(execFile);

/** Runs `npm run <tool> -- ...args` and returns its standard output. */
export async function operatorCli(
  env: TestEnvironment,
  tool: 'clients' | 'webhooks',
  ...args: string[]
): Promise<string> {
  const { stdout } = await run('npm', ['run', '--silent', tool, '--', ...args], {
    env: {
      ...process.env,
      DATABASE_URL: env.databaseUrl,
      LEGACY_DATABASE_URL: env.legacyUrl,
      REDIS_URL: env.redisUrl,
      REDIS_PREFIX: env.redisPrefix,
    },
  });
  return stdout;
}
