// The operator's command-line tools as an operator runs them: the command of `npm run <tool>`, a
// process of its own against the test environment's databases and Redis (where the tools announce
// client changes to the gateways' caches). A failing command rejects with its exit code and
// stderr. The script's own build check is left out (the run's global setup has built dist/ once)
// and so is npm: each cost a second or two per command, in files that run dozens of them.
// `test/operations/operator-interface.test.ts` runs the tools through npm itself.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { TEST_SECRETS_KEY, type TestEnvironment } from './environment.js';

const run = promisify(execFile);

const BUILD_CHECK = 'node scripts/build.mjs --if-stale && ';
const scripts = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;

/** The arguments to `node` that `npm run <tool>` runs after its build check. */
function nodeArgumentsOf(tool: string): string[] {
  const script = scripts[tool];
  if (!script?.startsWith(`${BUILD_CHECK}node `)) {
    throw new Error(`npm run ${tool} is not "${BUILD_CHECK}node ...": ${script}`);
  }
  return script.slice(BUILD_CHECK.length + 'node '.length).split(' ');
}

/** Runs `npm run <tool> -- ...args` and returns its standard output. */
export function operatorCli(
  env: TestEnvironment,
  tool: 'clients' | 'webhooks' | 'usage' | 'console' | 'audit' | 'members' | 'sandbox',
  ...args: string[]
): Promise<string> {
  return operatorCliWith(env, {}, tool, ...args);
}

/** The same, with operator variables of its own (SECRETS_KEY...). */
export async function operatorCliWith(
  env: TestEnvironment,
  variables: Record<string, string>,
  tool:
    'clients' | 'webhooks' | 'usage' | 'console' | 'audit' | 'members' | 'sync:verify' | 'sandbox',
  ...args: string[]
): Promise<string> {
  const { stdout } = await run(process.execPath, [...nodeArgumentsOf(tool), ...args], {
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
