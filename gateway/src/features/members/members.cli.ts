// `npm run members -- <command> ID`: what the gateway holds about a member and who received it
// (docs/decisions/0023-data-classes.md). This entry point only reads the arguments; the database
// is opened when a command runs.
import { parseArgs } from 'node:util';
import { runOperatorCli } from '../../cli/operator-cli.js';
import { USAGE, type MembersCliArgs } from './members.usage.js';

function parse(argv: string[]): MembersCliArgs & { help: boolean } {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      reason: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command = '', id] = positionals;
  return { ...values, command, id, help: values.help || command === 'help' };
}

process.exitCode = await runOperatorCli(process.argv.slice(2), {
  parse,
  usage: USAGE,
  commands: () => import('./members.commands.js'),
  root: () => import('../../cli-services.js').then(({ cliRoot }) => cliRoot()),
});
