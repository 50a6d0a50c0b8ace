// Text search through Prisma's `contains`/`startsWith`/`endsWith`, which become SQL LIKE with the
// value spliced between `%`s unescaped: a search for "%" or "_" would match every row. Every such
// filter passes its value through likeLiteral first.

/** The value with LIKE's wildcards and its escape character (PostgreSQL's default `\`) escaped. */
export function likeLiteral(value: string): string {
  return value.replace(/[\\%_]/g, (character) => `\\${character}`);
}
