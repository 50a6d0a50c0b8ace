// A refusal the operator can act on (an unknown key, a malformed scope list), thrown by the
// operator services the CLI and the console share: the CLI prints its message and exits with its
// code, the console shows the message beside the form. It lives in cli/, below the features that
// throw it, so the CLI runner catches it without importing a feature.

export class OperatorRefusal extends Error {
  constructor(
    message: string,
    /** The CLI's exit code: 1 refused (unknown branch, database error), 2 a usage mistake. */
    readonly exitCode: 1 | 2 = 2,
  ) {
    super(message);
  }
}
