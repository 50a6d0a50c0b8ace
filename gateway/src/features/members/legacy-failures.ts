// What a failed legacy transaction means for the caller. The MariaDB driver's SqlError carries
// MySQL's error number (errno) and message; a pool that could not connect names its last
// connect error in its message.
import { isDependencyDown } from '../../http/error-handler.js';
import { AppError, serviceUnavailable } from '../../http/errors.js';
import { duplicate } from './members.legacy.js';

interface DriverError {
  errno?: unknown;
  sqlMessage?: unknown;
  message?: unknown;
  cause?: unknown;
}

const MYSQL_DUPLICATE_KEY = 1062;
const MYSQL_LOCK_WAIT_TIMEOUT = 1205;
const MYSQL_DEADLOCK = 1213;

/**
 * The index a duplicate-key error names: `... for key 'uq_members_tc_no'` (MySQL 8 prefixes the
 * table).
 */
function duplicateIndex(sqlMessage: unknown): string | undefined {
  if (typeof sqlMessage !== 'string') return undefined;
  return /for key '(?:[^']*\.)?([^'.]+)'$/.exec(sqlMessage)?.[1];
}

/**
 * 'retry': nothing was written and running again may succeed (a deadlock victim, a code drawn
 * twice); 'down': MySQL is unreachable (503); an AppError: the answer to give; null: an
 * unexpected failure (500).
 */
export function legacyFailure(error: unknown): AppError | 'retry' | 'down' | null {
  if (error instanceof AppError) return error;
  const { errno, sqlMessage, message, cause } = (error ?? {}) as DriverError;
  if (errno === MYSQL_DUPLICATE_KEY) {
    // The tc_no index is the dashboard's duplicate rule across branches; codes are drawn again.
    return duplicateIndex(sqlMessage) === 'uq_members_tc_no' ? duplicate() : 'retry';
  }
  if (errno === MYSQL_DEADLOCK) return 'retry';
  if (errno === MYSQL_LOCK_WAIT_TIMEOUT) return serviceUnavailable(1);
  // A pool timeout names its last connect error when MySQL is unreachable; without one the pool
  // was only busy, which is no reason to refuse the next writes.
  const told = `${String(message)} ${cause instanceof Error ? cause.message : ''}`;
  if (/ECONN|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|Connection timeout/i.test(told)) return 'down';
  if (isDependencyDown(error)) return serviceUnavailable(1);
  return null;
}
