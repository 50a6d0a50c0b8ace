// What a failed legacy transaction means for the caller. Prisma wraps MySQL's error in
// meta.driverAdapterError.cause (originalCode is MySQL's error number).
import { isDependencyDown } from '../../http/error-handler.js';
import { AppError, serviceUnavailable } from '../../http/errors.js';
import { duplicate } from './members.legacy.js';

interface AdapterCause {
  originalCode?: string;
  constraint?: { index?: string };
}

function adapterCause(error: unknown): AdapterCause | undefined {
  const meta = (error as { meta?: { driverAdapterError?: { cause?: AdapterCause } } }).meta;
  return meta?.driverAdapterError?.cause;
}

const MYSQL_DUPLICATE_KEY = '1062';
const MYSQL_LOCK_WAIT_TIMEOUT = '1205';
const MYSQL_DEADLOCK = '1213';
/** Prisma: transaction could not start or ran past its time; write conflict or deadlock. */
const PRISMA_TRANSACTION_TIMEOUT = 'P2028';
const PRISMA_WRITE_CONFLICT = 'P2034';

/**
 * 'retry': nothing was written and running again may succeed (a deadlock victim, a code drawn
 * twice); 'down': MySQL is unreachable (503); an AppError: the answer to give; null: an
 * unexpected failure (500).
 */
export function legacyFailure(error: unknown): AppError | 'retry' | 'down' | null {
  if (error instanceof AppError) return error;
  const cause = adapterCause(error);
  const code = (error as { code?: unknown }).code;
  if (cause?.originalCode === MYSQL_DUPLICATE_KEY) {
    // The tc_no index is the dashboard's duplicate rule across branches; codes are drawn again.
    return cause.constraint?.index === 'uq_members_tc_no' ? duplicate() : 'retry';
  }
  if (cause?.originalCode === MYSQL_DEADLOCK || code === PRISMA_WRITE_CONFLICT) return 'retry';
  if (cause?.originalCode === MYSQL_LOCK_WAIT_TIMEOUT || code === PRISMA_TRANSACTION_TIMEOUT) {
    return serviceUnavailable(1);
  }
  // A pool timeout names its last connect error when MySQL is unreachable; without one the pool
  // was only busy, which is no reason to refuse the next writes.
  if (cause && /ECONN|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND/i.test(JSON.stringify(cause))) return 'down';
  if (isDependencyDown(error)) return serviceUnavailable(1);
  return null;
}
