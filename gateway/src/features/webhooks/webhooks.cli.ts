// `npm run webhooks -- <command>`: webhook subscriptions for operators. This entry point only
// reads the arguments; the database layer is loaded when a command needs it, so `--help` and
// argument mistakes answer at once.
import { parseArgs } from 'node:util';
import { CliError, runOperatorCli } from '../../cli/operator-cli.js';
import { USAGE, type CliArgs } from './webhooks.usage.js';

function parse(argv: string[]): CliArgs & { help: boolean } {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      client: { type: 'string' },
      limit: { type: 'string' },
      'path-only': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command = '', id, ...extra] = positionals;
  if (extra.length > 0) throw new CliError(`unexpected argument(s): ${extra.join(' ')}`);
  const { 'path-only': pathOnly, ...rest } = values;
  return { ...rest, pathOnly, command, id, help: values.help || command === 'help' };
}

process.exitCode = await runOperatorCli(process.argv.slice(2), {
  parse,
  usage: USAGE,
  commands: () => import('./webhooks.commands.js'),
  root: () => import('../../cli-services.js').then(({ cliRoot }) => cliRoot()),
});
