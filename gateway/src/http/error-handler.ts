// The one error funnel, mounted last: every failure leaves in the specification's error body.
// A 500 never shows a stack trace, SQL or a dependency's message.
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { recordRequestError } from './access-log.js';
import { AppError, notFound, serviceUnavailable, validationError } from './errors.js';
import { zodDetails } from './validation.js';

const DEPENDENCY_DOWN_PRISMA_CODES = new Set([
  'P1001',
  'P1002',
  'P1008',
  'P1017',
  'P2024',
  'P2037',
]);
const DEPENDENCY_DOWN_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
]);
/**
 * PostgreSQL SQLSTATEs of a server that is away or overloaded rather than of a bad query:
 * connection exceptions (class 08), shutdown, crash and start-up (57P01-57P05), too many
 * connections (53300) and a statement cancelled by its timeout (57014).
 */
const DEPENDENCY_DOWN_SQLSTATE = /^(08...|57P0[1-5]|53300|57014)$/;
const DEPENDENCY_DOWN_MESSAGES = [
  /Query read timeout/i,
  /the database system is (starting up|shutting down|in recovery)/i,
  /terminating connection/i,
  /socket timeout/i,
  /Command timed out/i,
  /Connection is closed/i,
  /Stream isn't writeable/i,
  /Reached the max retries per request/i,
  /Can't reach database server/i,
  /Connection terminated/i,
  /pool timeout/i,
  /timeout exceeded when trying to connect/i,
];

interface ErrorLike {
  code?: unknown;
  originalCode?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
  /** Where @node-oauth/oauth2-server keeps the error a model function threw. */
  inner?: unknown;
}

function signalsDependencyDown({ code, originalCode, message }: ErrorLike): boolean {
  if (typeof code === 'string') {
    if (DEPENDENCY_DOWN_PRISMA_CODES.has(code) || DEPENDENCY_DOWN_NODE_CODES.has(code)) return true;
    if (DEPENDENCY_DOWN_SQLSTATE.test(code)) return true;
  }
  if (typeof originalCode === 'string' && DEPENDENCY_DOWN_SQLSTATE.test(originalCode)) return true;
  return typeof message === 'string' && DEPENDENCY_DOWN_MESSAGES.some((re) => re.test(message));
}

/**
 * Walks an error's cause chain looking for a sign that PostgreSQL, MySQL or Redis is away.
 * Prisma keeps the driver's error under meta.driverAdapterError, the chain goes through it.
 */
export function isDependencyDown(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 8; depth++) {
    const link = e as ErrorLike;
    if (signalsDependencyDown(link)) return true;
    e = link.meta?.driverAdapterError ?? link.cause ?? link.inner;
  }
  return false;
}

/**
 * zlib's error for a body declared Content-Encoding gzip, deflate or br that does not decompress
 * (Z_DATA_ERROR..., brotli's ERR__ERROR_...): the caller's mistake, not ours.
 */
export function isDecompressionError(error: unknown): boolean {
  const { code, errno } = error as { code?: unknown; errno?: unknown };
  return typeof errno === 'number' && typeof code === 'string' && /^(Z_|ERR__)/.test(code);
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown }).code === 'P2002';
}

interface BodyParserError {
  type?: string;
  status?: number;
}

/** The answer an error stands for; null for a failure of ours (500). */
export function toAppError(error: unknown): AppError | null {
  // A 500 built around a failure (e.g. the token engine's server_error) that was in truth a
  // dependency being away is a 503: the partner should retry, not report a bug.
  if (error instanceof AppError) {
    return error.status === 500 && isDependencyDown(error.cause) ? serviceUnavailable(5) : error;
  }
  if (error instanceof z.ZodError) return validationError(zodDetails(error));
  // The router could not percent-decode a path parameter (/members/%FF).
  if (error instanceof URIError) {
    return validationError([{ field: '(path)', message: 'Adres çözümlenemedi.' }]);
  }
  const parserError = error as BodyParserError;
  if (parserError.type === 'entity.too.large') {
    return new AppError({
      status: 413,
      code: 'VALIDATION_ERROR',
      message: 'İstek gövdesi çok büyük (en fazla 100 kB).',
    });
  }
  if (typeof parserError.type === 'string' && parserError.type.startsWith('entity.')) {
    return validationError(
      [{ field: '(body)', message: 'Geçerli bir JSON gövdesi bekleniyor.' }],
      'İstek gövdesi okunamadı.',
    );
  }
  if (typeof parserError.type === 'string' && parserError.status && parserError.status < 500) {
    return validationError([{ field: '(body)', message: 'İstek gövdesi okunamadı.' }]);
  }
  if (isDecompressionError(error)) {
    return validationError([{ field: '(body)', message: 'Sıkıştırılmış gövde açılamadı.' }]);
  }
  if (isUniqueViolation(error)) {
    return new AppError({
      status: 409,
      code: 'DUPLICATE',
      message: 'Aynı bilgilere sahip bir kayıt zaten var.',
    });
  }
  if (isDependencyDown(error)) return serviceUnavailable(5);
  return null;
}

export function sendError(res: Response, error: AppError): void {
  // Whatever the route allowed its success (the documentation's files), an error is never kept.
  res.set('Cache-Control', 'no-store');
  if (error.retryAfter !== undefined) res.set('Retry-After', String(error.retryAfter));
  res.status(error.status).json({
    success: false,
    error: error.code,
    message: error.message,
    ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
    ...(error.details ? { details: error.details } : {}),
    request_id: res.locals.requestId as string,
  });
}

/**
 * RFC 6750 §3 challenge of a 401 (RFC 7235 requires one on every 401) or of a 403 for want of a
 * scope; error="..." only when the request did present a bearer token.
 */
function setBearerChallenge(req: Request, res: Response, error: AppError): void {
  const presented = /^Bearer\s/i.test(req.get('authorization') ?? '');
  if (error.code === 'INVALID_TOKEN') {
    res.set('WWW-Authenticate', presented ? 'Bearer error="invalid_token"' : 'Bearer');
  } else if (error.code === 'INSUFFICIENT_SCOPE' && presented) {
    res.set('WWW-Authenticate', 'Bearer error="insufficient_scope"');
  }
}

export function errorHandler(): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const known = toAppError(error);
    if (known && known.status < 500) {
      setBearerChallenge(req, res, known);
      sendError(res, known);
      return;
    }
    // Logged once, in the request's own line (access-log.ts), with its cause.
    recordRequestError(res, error);
    if (res.headersSent) {
      res.end();
      return;
    }
    sendError(
      res,
      known ??
        new AppError({
          status: 500,
          code: 'SERVER_ERROR',
          message: 'Beklenmeyen bir hata oluştu.',
        }),
    );
  };
}

/** Unknown paths answer 404 NOT_FOUND in the error body, never Express's HTML page. */
export const unknownRoute: RequestHandler = () => {
  throw notFound('İstenen adres bulunamadı.');
};
