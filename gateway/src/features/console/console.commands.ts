// The commands of console.cli.ts: a sign-in link, stored in the deployment's Redis as a hash
// (pages/sign-in-links.ts), and its making recorded in the operator audit.
import type { OpenCliServices } from '../../cli-services.js';
import { parseTtl } from '../../cli/link-options.js';
import { CliError } from '../../cli/operator-cli.js';
import { terminalJson } from '../../cli/terminal-text.js';
import { createSignInLink, linkKeysOf } from '../../pages/sign-in-links.js';
import { cliOperator, recordOperatorAction } from '../operators/operator-audit.js';
import { CONSOLE } from '../../pages/areas.js';
import { USAGE, type ConsoleCliArgs } from './console.usage.js';

export async function runCommand(args: ConsoleCliArgs, open: OpenCliServices): Promise<void> {
  if (args.command !== 'link')
    throw new CliError(args.command ? `unknown command "${args.command}"` : USAGE);
  const ttlMs = parseTtl(args.ttl);
  const operator = cliOperator();
  const name = args.name?.trim() || operator.actor;
  // The gateway finds the link by its hash under SECRETS_KEY: the same key is needed here.
  const { config, db, redis } = open({ secretsKey: true });
  const token = await createSignInLink(await redis(), linkKeysOf(config), { name }, ttlMs);
  // The name the link signs in as: who may act in the console is what the audit must tell.
  await recordOperatorAction(db, operator, 'console.link', { target: name });
  const url = `${config.console.publicOrigin}${CONSOLE}/sign-in/${token}`;
  const expiresAt = new Date(Date.now() + ttlMs).toISOString();
  console.log(
    args.json
      ? terminalJson({ url, name, expires_at: expiresAt })
      : `${url}\nSigns in ${name} once, until ${expiresAt}.`,
  );
}
