// `npm run sandbox -- <command>`: the partners' sandbox for operators (docs/decisions/0024-sandbox.md).
import { parseArgs } from 'node:util';
import { runOperatorCli } from '../../cli/operator-cli.js';
import { USAGE, type SandboxArgs } from './sandbox.usage.js';

function parse(argv: string[]): SandboxArgs {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      seed: { type: 'string' },
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
  commands: () => import('./sandbox.commands.js'),
  root: () => import('../../cli-services.js').then(({ cliRoot }) => cliRoot()),
});
