// Which club a client's data comes from: the live one (the dashboard's) or the sandbox, a
// generated club in databases of its own (docs/decisions/0024-sandbox.md). The key says it, so
// every part that meets a client (a request, a subscription's events, a delivery) decides alike
// and nothing needs a column to remember.

/** The beginning of every sandbox client's key; a live key begins `ck_`. */
export const SANDBOX_KEY_PREFIX = 'sbx_';

export type Club = 'live' | 'sandbox';

export const clubOf = (clientKey: string): Club =>
  clientKey.startsWith(SANDBOX_KEY_PREFIX) ? 'sandbox' : 'live';

/** A SQL LIKE pattern matching the sandbox's keys (`_` escaped). */
export const SANDBOX_KEY_PATTERN = 'sbx\\_%';
