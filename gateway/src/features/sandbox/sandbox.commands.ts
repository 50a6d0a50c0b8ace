// The sandbox CLI's commands (sandbox.cli.ts reads the arguments).
import { loadConfigOrExit } from '#common/config.js';
import { prepareSandbox, resetSandbox } from '#legacy-data/sandbox-club.js';
import { migrateReadModel } from '#prisma/read-model/migrate.js';
import { CliError } from '../../cli/operator-cli.js';
import type { SandboxArgs } from './sandbox.usage.js';

function seedOf(value: string | undefined): number {
  if (value === undefined) return Date.now() % 2_147_483_647;
  const seed = Number(value);
  if (!Number.isInteger(seed) || seed < 0 || seed > 2_147_483_647) {
    throw new CliError(`--seed must be a whole number from 0 to 2147483647, got "${value}"`, 2);
  }
  return seed;
}

export async function runCommand(args: SandboxArgs): Promise<void> {
  const config = loadConfigOrExit();
  if (!config.sandbox.enabled) throw new CliError('the sandbox is off (SANDBOX=off)', 1);
  const print = (result: string) => console.log(args.json ? JSON.stringify({ result }) : result);
  switch (args.command) {
    case 'reset':
      return print(await resetSandbox(config, migrateReadModel, seedOf(args.seed)));
    case 'prepare':
      return print(await prepareSandbox(config, migrateReadModel));
    default:
      throw new CliError(
        args.command
          ? `unknown command "${args.command}" (see npm run sandbox -- --help)`
          : 'a command is needed: reset or prepare (see npm run sandbox -- --help)',
        2,
      );
  }
}
