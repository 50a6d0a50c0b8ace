// What the operator CLI (webhooks.cli.ts) accepts, shared with its commands.

export const USAGE = `usage: npm run webhooks -- <command> [options]

commands:
  list [--client KEY]     every subscription (or one client's): id, client, url, types, state,
                          and its events published, delivered, failed, pending and cancelled
                          (not sent: the client may no longer receive them)
  disable ID [--path-only]
                          stop deliveries (reason "operator"); events keep being recorded;
                          the partner cannot enable it again, only this CLI can; its client
                          cannot subscribe to its target's host and port (any path, any
                          scheme) until then, even after deleting it. --path-only: hold only
                          its URL's path on that host and port
  enable ID               deliver again; pending events are tried at once, on a fresh schedule;
                          for a subscription its client deleted, frees its target
  deliveries ID [--limit N]
                          the latest tries, newest first (default 50, at most 1000)
  reencrypt-secrets       every signing secret encrypted again under SECRETS_KEY's first key
                          (after adding a key, or for secrets stored before encryption)

options:
  --json                  machine-readable output (errors too, on stderr)
  -h, --help              this text

Exit codes: 0 done, 1 refused (database error, a secret no key decrypts), 2 usage error or
unknown id.`;

export const DEFAULT_DELIVERIES = 50;
export const MAX_DELIVERIES = 1000;

export interface CliArgs {
  command: string;
  id: string | undefined;
  client?: string | undefined;
  limit?: string | undefined;
  pathOnly?: boolean | undefined;
  json: boolean;
}
