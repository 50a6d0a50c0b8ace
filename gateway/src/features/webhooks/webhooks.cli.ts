// `npm run webhooks -- <command>`: webhook subscriptions for operators. This entry point only
// reads the arguments; the database layer is loaded when a command needs it, so `--help` and
// argument mistakes answer at once.
import { parseArgs } from 'node:util';
import { CliError, USAGE, type CliArgs } from './webhooks.usage.js';

function parse(argv: string[]): CliArgs & { help: boolean } {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      client: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command = '', id, ...extra] = positionals;
  if (extra.length > 0) throw new CliError(`unexpected argument(s): ${extra.join(' ')}`);
  return { ...values, command, id, help: values.help || command === 'help' };
}

async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  try {
    const args = parse(argv);
    if (args.help) {
      console.log(USAGE);
      return 0;
    }
    const { runCommand } = await import('./webhooks.commands.js');
    await runCommand(args);
    return 0;
  } catch (error) {
    const usage = String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS');
    const known = error instanceof CliError || usage;
    const message = known ? (error as Error).message : `failed: ${(error as Error).message}`;
    console.error(json ? JSON.stringify({ error: message }) : message);
    if (error instanceof CliError) return error.exitCode;
    return usage ? 2 : 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
