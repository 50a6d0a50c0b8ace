// `npm run clients -- <command>`: API client management for operators. This entry point only
// reads the arguments; the database layer is loaded when a command needs it, so `--help` and
// argument mistakes answer at once.
import { parseArgs } from 'node:util';
import { runOperatorCli } from '../../cli/operator-cli.js';
import { USAGE, type CliArgs } from './clients.usage.js';

function parse(argv: string[]): CliArgs & { help: boolean } {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      scopes: { type: 'string' },
      branch: { type: 'string' },
      limits: { type: 'string' },
      data: { type: 'string' },
      overlap: { type: 'string' },
      ttl: { type: 'string', default: '15m' },
      'revoke-all': { type: 'boolean', default: false },
      sandbox: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command = '', key, arg] = positionals;
  const { 'revoke-all': revokeAll, ...rest } = values;
  return { ...rest, revokeAll, command, key, arg, help: values.help || command === 'help' };
}

process.exitCode = await runOperatorCli(process.argv.slice(2), {
  parse,
  usage: USAGE,
  commands: () => import('./clients.commands.js'),
  root: () => import('../../cli-services.js').then(({ cliRoot }) => cliRoot()),
});
