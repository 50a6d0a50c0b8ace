// A refusal the operator can act on (an unknown key, a malformed scope list), thrown by the
// operator services the CLI and the console share: the CLI prints its message and exits with its
// code, the console shows the message beside the form. It lives in cli/, below the features that
// throw it, so the CLI runner catches it without importing a feature.

/**
 * What was refused, with its values: a page words it in its visitor's language from these
 * (pages/outcome.tsx, docs/decisions/0025-page-languages.md); the CLI prints the message.
 */
export type RefusalReason =
  | { key: 'no-client'; clientKey: string }
  | { key: 'no-subscription'; id: number }
  | { key: 'no-member'; id: number }
  | { key: 'member-id'; value: string }
  | { key: 'unknown-scopes'; unknown: string[]; known: readonly string[] }
  | { key: 'unknown-classes'; unknown: string[]; known: readonly string[] }
  | { key: 'limits'; value: string }
  | { key: 'sandbox-off' }
  | { key: 'branch'; value: string }
  | { key: 'no-branch'; id: number }
  | { key: 'name-needed' }
  | { key: 'scopes-needed' }
  | { key: 'overlap' }
  | { key: 'reason-needed' }
  | { key: 'already-erased'; id: number; at: Date }
  | { key: 'client-disabled'; clientKey: string };

export class OperatorRefusal extends Error {
  constructor(
    message: string,
    /** The CLI's exit code: 1 refused (unknown branch, database error), 2 a usage mistake. */
    readonly exitCode: 1 | 2 = 2,
    readonly options: {
      reason?: RefusalReason;
      /** What an edit of several changes applied before this refusal (clients.service.ts). */
      saved?: readonly string[];
    } = {},
  ) {
    super(message);
  }
}

/** The refusal of a client key that names no client. */
export const noClient = (clientKey: string) =>
  new OperatorRefusal(`no client with key ${clientKey}`, 2, {
    reason: { key: 'no-client', clientKey },
  });
