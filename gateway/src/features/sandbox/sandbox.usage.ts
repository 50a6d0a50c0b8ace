// What the sandbox CLI (sandbox.cli.ts) accepts, shared with its commands.

export const USAGE = `usage: npm run sandbox -- <command> [options]

commands:
  reset [--seed N]        generates the sandbox's club afresh (members, branches, packages,
                          transactions, presence...): its dashboard database anew, its read model
                          emptied for the worker to load within seconds. Sandbox clients, their
                          subscriptions and cursors stay; the old rows leave without deletes
  prepare                 makes the sandbox's databases where they are missing (npm run db:migrate
                          does it too)

options:
  --json                  machine-readable output (errors too, on stderr)
  -h, --help              this text

The sandbox's databases: SANDBOX_DATABASE_URL and SANDBOX_LEGACY_DATABASE_URL (by default the
live ones' names with _sandbox added). Exit codes: 0 done, 1 failed, 2 usage error.`;

export interface SandboxArgs {
  command: string;
  seed?: string | undefined;
  json: boolean;
  help: boolean;
}
