// What the members CLI (members.cli.ts) accepts, shared with its commands.

export const USAGE = `usage: npm run members -- <command> ID [options]

commands:
  recipients ID           every client that received the member's data: its key, the classes
                          received, first and last time
  report ID               what the gateway holds about the member (its record in every class,
                          what else is kept about it) and who received which classes: a data
                          subject's access request in one command

  erase ID --reason TEXT  erases the member's personal data everywhere: the dashboard's row
                          (name, phone, e-mail, tc_no... replaced; packages and transactions
                          stay), the read model at once, the gateway's own copies; every client
                          that received the member is told (op erase). Prints the receipt

options:
  --reason TEXT           why (erase); kept in the operator audit
  --json                  machine-readable output (errors too, on stderr)
  -h, --help              this text

ID is the member's id in the dashboard. Each command is recorded in the operator audit.
Exit codes: 0 done, 1 no such member or a database error, 2 a usage mistake.`;

export interface MembersCliArgs {
  command: string;
  id: string | undefined;
  reason?: string | undefined;
  json: boolean;
}
