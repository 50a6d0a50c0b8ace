// What the operator CLI (clients.cli.ts) accepts, shared with its commands.

export const USAGE = `usage: npm run clients -- <command> [options]

commands:
  create --name NAME --scopes a,b [--branch ID] [--limits M/H/D] [--data a,b] [--sandbox]
                          create a client; its secret is printed only this once. --data: the
                          classes of members' personal data it receives beside basic (contact,
                          identity, address, access, finance, staff); none: basic only.
                          --sandbox: its key begins sbx_ and its tokens see only the sandbox's
                          generated club (npm run sandbox -- reset makes it afresh)
  list                    every client: key, name, scopes, data classes, branch, limits, state,
                          last use
  grant KEY --data a,b    sets the client's whole list of data classes ("basic": none beyond it);
                          every gateway applies it within a second, to tokens already issued
  disable KEY | enable KEY
                          disabling ends every token of the client; enabling brings none back
  rotate-secret KEY [--overlap 24h]
                          new secret, printed only this once; the old one and every token of the
                          client stop working at once, on every gateway. With --overlap (up to
                          168h), both secrets issue tokens until it ends; then the old one and
                          the tokens it issued stop working, on every gateway
  end-previous-secret KEY the overlap ends now: the old secret and its tokens stop working
  revoke-tokens KEY       every access and refresh token of the client stops working at once
                          Each of disable, rotate-secret, end-previous-secret and revoke-tokens
                          disables the webhook subscriptions the ended credentials created or
                          last pointed at their URL ("credentials-ended") and lists them: their
                          partner enables its own again after looking
  set-scopes KEY a,b
  set-limits KEY M/H/D    per-minute/hour/day request limits, or "default"
  set-branch KEY ID       binds the client to a branch of the read model, or "all" for none
  portal-link KEY [--ttl 15m]
                          prints a URL that signs the client's partner in to /portal, once,
                          within --ttl (s, m or h; at most 24h) and while the client's tokens
                          of now live (revoke-tokens, rotate-secret, disable end it); under
                          PUBLIC_BASE_URL
  portal-link KEY --revoke-all
                          ends every portal link of the client not yet used

options:
  --json                  machine-readable output (errors too, on stderr)
  -h, --help              this text

--branch and set-branch must name a branch of the read model (synced from the dashboard).
Exit codes: 0 done, 1 refused (unknown branch, database error), 2 usage error or unknown key.`;

export interface CliArgs {
  command: string;
  key: string | undefined;
  arg: string | undefined;
  name?: string | undefined;
  scopes?: string | undefined;
  branch?: string | undefined;
  limits?: string | undefined;
  data?: string | undefined;
  sandbox?: boolean | undefined;
  overlap?: string | undefined;
  ttl: string;
  revokeAll?: boolean | undefined;
  json: boolean;
}
