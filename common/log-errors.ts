// What an error may show of itself in a log line. Database drivers put the data of a failed
// statement into their errors: the mariadb driver appends the statement and its parameters to the
// message (and so to the stack's first line) and keeps them in `sql`; MySQL quotes the duplicate
// or refused value in its own words; PostgreSQL names a key's value in `detail` and a row in
// `where`; Prisma prints a call's arguments. A member's tc_no, phone or name would reach the log
// with any failed write. So an error is logged by its kind and its words, never its data: named
// fields only, the message and the statement without parameters or quoted values, the stack's
// frames.

/** Fields that say what failed, never with what: codes, statuses, names of schema objects. */
const KEPT_FIELDS = [
  'code',
  'errno',
  'sqlState',
  'originalCode',
  'kind',
  'status',
  'table',
  'column',
  'constraint',
] as const;

/** How many links of a cause chain are logged. */
const MAX_DEPTH = 5;
const MAX_MESSAGE = 500;

/**
 * A quoted text after one of these words is the name of a schema object or user, kept:
 * `for key 'uq_members_tc_no'`, `relation "member_write_audit"`.
 */
const IDENTIFIER_WORDS =
  'key|constraint|column|table|relation|index|database|schema|type|function|sequence|user|field';
/**
 * MySQL quotes a value without escaping the quotes inside it, so its end is found by what
 * follows: `Duplicate entry '...' for key 'k'`, `Incorrect ... value: '...' for column ...`.
 */
const MYSQL_VALUES: [RegExp, string][] = [
  [/entry '.*' for key /g, "entry '…' for key "],
  [/value: '.*'( for column |$)/gm, "value: '…'$1"],
];
const QUOTED = new RegExp(
  `(\\b(?:${IDENTIFIER_WORDS}) +)?(['"])(?:\\\\.|(?!\\2)[^\\\\\n])*\\2`,
  'gi',
);

/** A driver's message without the statement it ran and without any value it quotes. */
export function scrubbedMessage(message: string): string {
  // The mariadb driver appends "\nsql: <statement> - parameters:[...]".
  let words = message.split('\nsql: ', 1)[0] ?? '';
  for (const [value, masked] of MYSQL_VALUES) words = words.replace(value, masked);
  return words
    .replace(QUOTED, (literal, word: string | undefined, quote: string) =>
      word ? literal : `${quote}…${quote}`,
    )
    .slice(0, MAX_MESSAGE);
}

/** The stack's frames, without its first lines: they repeat the message, statement included. */
function framesOf(stack: unknown): string | undefined {
  if (typeof stack !== 'string') return undefined;
  const frames = stack.split('\n').filter((line) => /^\s+at /.test(line));
  return frames.length > 0 ? frames.join('\n') : undefined;
}

interface ErrorFields {
  name?: unknown;
  message?: unknown;
  originalMessage?: unknown;
  stack?: unknown;
  cause?: unknown;
  inner?: unknown;
  errors?: unknown;
  meta?: { driverAdapterError?: unknown };
}

function nextOf(link: ErrorFields): unknown {
  // Prisma keeps the driver's error under meta.driverAdapterError; the oauth library under inner.
  return link.meta?.driverAdapterError ?? link.cause ?? link.inner;
}

/** `error` as it may appear in a log line (pino's serializer of `err`). */
export function errorForLog(error: unknown, depth = 0): unknown {
  if (typeof error === 'string') return scrubbedMessage(error);
  if (typeof error !== 'object' || error === null) return error;
  const link = error as ErrorFields & Record<string, unknown>;
  const out: Record<string, unknown> = {
    type: error instanceof Error ? error.constructor.name : 'Object',
  };
  const words = typeof link.message === 'string' ? link.message : link.originalMessage;
  if (typeof words === 'string') out.message = scrubbedMessage(words);
  for (const field of KEPT_FIELDS) {
    const value = link[field];
    if (typeof value === 'string' || typeof value === 'number') out[field] = value;
  }
  // The statement's text says which failed; its parameters (the driver's list) never go with it.
  if (typeof link.sql === 'string') {
    out.sql = scrubbedMessage(link.sql.split(' - parameters:', 1)[0] ?? '');
  }
  const frames = framesOf(link.stack);
  if (frames) out.stack = frames;
  if (depth < MAX_DEPTH) {
    const next = nextOf(link);
    if (next !== undefined && next !== null) out.cause = errorForLog(next, depth + 1);
    if (Array.isArray(link.errors)) {
      out.errors = link.errors.slice(0, 5).map((e: unknown) => errorForLog(e, depth + 1));
    }
  }
  return out;
}
