// Which database one request reads (read-routing.ts chooses among them): a read replica only
// where the request may use one, and the primary again when that replica fails mid-read.
import type { Response } from 'express';
import { authOf, readAfterOf } from './authenticate.js';
import { isDependencyDown } from './error-handler.js';
import type { ReadChoice, ReadRouting } from './read-routing.js';
import type { ScopedRead } from './scoped-read.js';

/** The request's reads, chosen on the first one: a replica only if `mayUseReplica`. */
function readerOf(reads: ReadRouting, res: Response, mayUseReplica: boolean) {
  let chosen: ReadChoice | undefined;
  return {
    read: () =>
      (chosen ??= reads.choose(authOf(res).dataScope, mayUseReplica ? readAfterOf(res) : null))
        .read,
    chosen: () => chosen,
  };
}

/**
 * Runs `work` with the request's reads. A replica that went away mid-read (stopped, restarted):
 * the same work again, on the primary. `lagMs`: what the database that answered adds to
 * X-Data-Age.
 */
export async function withReads<T>(
  reads: ReadRouting,
  res: Response,
  mayUseReplica: boolean,
  work: (read: () => ScopedRead) => Promise<T>,
): Promise<{ result: T; lagMs: number }> {
  let reader = readerOf(reads, res, mayUseReplica);
  let result: T;
  try {
    result = await work(reader.read);
  } catch (error) {
    const replica = reader.chosen();
    if (!replica || replica.target === 'primary' || !isDependencyDown(error)) throw error;
    replica.failed();
    reader = readerOf(reads, res, false);
    result = await work(reader.read);
  }
  return { result, lagMs: reader.chosen()?.lagMs ?? 0 };
}
