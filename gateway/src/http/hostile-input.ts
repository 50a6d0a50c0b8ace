// Input no route can use, refused before it reaches a handler or a database. PostgreSQL refuses a
// NUL character in text outright (SQLSTATE 22021), so a NUL in any query value or body string
// would otherwise surface as a server error instead of the caller's mistake.
import type { RequestHandler } from 'express';
import { validationError } from './errors.js';

function holdsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (depth > 32 || value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(
    ([key, child]) => key.includes('\0') || holdsNul(child, depth + 1),
  );
}

/** 400 VALIDATION_ERROR when a query value or a parsed body holds a NUL character. */
export const refuseNulBytes: RequestHandler = (req, _res, next) => {
  for (const [source, value] of [
    ['(query)', req.query],
    ['(body)', req.body as unknown],
  ] as const) {
    if (holdsNul(value)) {
      throw validationError([{ field: source, message: 'NUL karakteri kabul edilmez.' }]);
    }
  }
  next();
};
