// The operator CLIs' one way to run (npm run clients, npm run webhooks): parse the arguments,
// answer --help at once, load the commands and their composition root (and with them the database
// layer) only when one runs, hand the command the root's services, close them once it is done,
// and turn every error into a message on stderr (JSON with --json) and an exit code.
// package.json runs every operator tool with `node --liftoff-only`: a command lives about a second,
// and V8's optimizing compile of the Prisma query compiler's WebAssembly, on background threads, was
// a sixth of its CPU (1.3 → 1.1 CPU-s for `clients list`) without making it any faster.
import { OperatorRefusal } from './operator-refusal.js';
import { escapeControls, terminalJson } from './terminal-text.js';

/**
 * A refusal the operator can act on: its message alone, and exit code 1 or 2. The services the
 * CLI shares with the console throw the same class.
 */
export { OperatorRefusal as CliError } from './operator-refusal.js';

/**
 * A process's services for its commands (gateway/src/cli-services.ts makes the gateway CLIs'),
 * and how they are all closed once the command is done.
 */
export interface CliRoot<Services> {
  services: Services;
  close(): Promise<void>;
}

/** Exit codes: 0 done, 1 refused or failed, 2 a usage mistake (or as the CliError says). */
export async function runOperatorCli<Args extends { help: boolean }, Services>(
  argv: string[],
  cli: {
    parse: (argv: string[]) => Args;
    usage: string;
    commands: () => Promise<{ runCommand: (args: Args, services: Services) => Promise<void> }>;
    root: () => Promise<CliRoot<Services>>;
  },
): Promise<number> {
  const json = argv.includes('--json');
  try {
    const args = cli.parse(argv);
    if (args.help) {
      console.log(cli.usage);
      return 0;
    }
    const [{ runCommand }, root] = await Promise.all([cli.commands(), cli.root()]);
    try {
      await runCommand(args, root.services);
    } finally {
      await root.close();
    }
    return 0;
  } catch (error) {
    const usage = String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS');
    const known = error instanceof OperatorRefusal || usage;
    const message = known ? (error as Error).message : `failed: ${(error as Error).message}`;
    // A database error may quote partner text.
    console.error(json ? terminalJson({ error: message }) : escapeControls(message));
    if (error instanceof OperatorRefusal) return error.exitCode;
    return usage ? 2 : 1;
  }
}
