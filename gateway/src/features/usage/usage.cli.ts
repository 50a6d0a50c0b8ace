// `npm run usage -- [options]`: usage reports for operators. This entry point only reads the
// arguments; the database layer is loaded when the report runs, so `--help` and argument mistakes
// answer at once.
import { parseArgs } from 'node:util';
import { CliError, runOperatorCli } from '../../cli/operator-cli.js';
import { HELP, type CliArgs } from './usage.help.js';

function parse(argv: string[]): CliArgs & { help: boolean } {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      client: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      by: { type: 'string' },
      json: { type: 'boolean', default: false },
      csv: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (positionals.length > 0)
    throw new CliError(`unexpected argument(s): ${positionals.join(' ')}`);
  if (values.json && values.csv) throw new CliError('--json and --csv: choose one');
  return values;
}

process.exitCode = await runOperatorCli(process.argv.slice(2), {
  parse,
  usage: HELP,
  commands: () => import('./usage.commands.js'),
  root: () => import('../../cli-services.js').then(({ cliRoot }) => cliRoot()),
});
