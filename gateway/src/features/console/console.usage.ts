// What the console CLI (console.cli.ts) accepts, shared with its commands.

export const USAGE = `usage: npm run console -- link [--name NAME] [--ttl 15m] [--json]

  link    prints a URL that signs one operator in to /console, once, within --ttl
          (s, m or h; at most 24h). NAME is shown in the console and the operator audit
          (default: this system user). The URL is under PUBLIC_BASE_URL.

Exit codes: 0 done, 1 failed (Redis or the database unreachable), 2 usage error.`;

export interface ConsoleCliArgs {
  command: string;
  name?: string | undefined;
  ttl: string;
  json: boolean;
}
