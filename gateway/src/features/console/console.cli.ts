// `npm run console -- link [--name NAME] [--ttl 15m]`: prints a single-use URL that signs an
// operator in to /console (docs/operations/run.md, "The console"). This entry point only reads the
// arguments; Redis and the database are opened when a command runs.
import { parseArgs } from 'node:util';
import { runOperatorCli } from '../../cli/operator-cli.js';
import { USAGE, type ConsoleCliArgs } from './console.usage.js';

function parse(argv: string[]): ConsoleCliArgs & { help: boolean } {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      ttl: { type: 'string', default: '15m' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command = ''] = positionals;
  return { ...values, command, help: values.help || command === 'help' };
}

process.exitCode = await runOperatorCli(process.argv.slice(2), {
  parse,
  usage: USAGE,
  commands: () => import('./console.commands.js'),
  root: () => import('../../cli-services.js').then(({ cliRoot }) => cliRoot()),
});
