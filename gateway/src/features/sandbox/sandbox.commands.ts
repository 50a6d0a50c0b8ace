// The sandbox CLI's commands (sandbox.cli.ts reads the arguments), with the services of the
// CLIs' composition root (gateway/src/cli-services.ts).
import type { OpenCliServices } from '../../cli-services.js';
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

export async function runCommand(args: SandboxArgs, open: OpenCliServices): Promise<void> {
  const { config, sandboxClub } = open();
  if (!config.sandbox.enabled) throw new CliError('the sandbox is off (SANDBOX=off)', 1);
  const print = (result: string) => console.log(args.json ? JSON.stringify({ result }) : result);
  switch (args.command) {
    case 'reset':
      return print(await sandboxClub.reset(seedOf(args.seed)));
    case 'prepare':
      return print(await sandboxClub.prepare());
    default:
      throw new CliError(
        args.command
          ? `unknown command "${args.command}" (see npm run sandbox -- --help)`
          : 'a command is needed: reset or prepare (see npm run sandbox -- --help)',
        2,
      );
  }
}
