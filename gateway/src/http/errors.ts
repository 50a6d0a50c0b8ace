// The one error type of the gateway. Codes and statuses are the specification's; messages are
// Turkish, as partners' end users read them.

export const ERROR_CODES = [
  'VALIDATION_ERROR',
  'INVALID_TOKEN',
  'INSUFFICIENT_SCOPE',
  'NOT_FOUND',
  'DUPLICATE',
  'RATE_LIMIT_EXCEEDED',
  'SERVER_ERROR',
  // Beyond the specification's seven: only a PUT /members/{id} carrying If-Match can meet it.
  'PRECONDITION_FAILED',
  // Beyond the specification too: a change-feed cursor older than the feed keeps deletes.
  'CURSOR_EXPIRED',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorDetail {
  field: string;
  message: string;
}

export class AppError extends Error {
  override readonly name = 'AppError';
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly retryAfter: number | undefined;

  constructor(options: {
    status: number;
    code: ErrorCode;
    message: string;
    details?: ErrorDetail[];
    retryAfter?: number;
    cause?: unknown;
  }) {
    super(options.message, { cause: options.cause });
    this.status = options.status;
    this.code = options.code;
    this.details = options.details;
    this.retryAfter = options.retryAfter;
  }
}

export const validationError = (
  details: ErrorDetail[],
  message = 'İstek parametreleri geçersiz.',
) => new AppError({ status: 400, code: 'VALIDATION_ERROR', message, details });

export const invalidToken = (message = 'Erişim belirteci geçersiz veya süresi dolmuş.') =>
  new AppError({ status: 401, code: 'INVALID_TOKEN', message });

export const insufficientScope = (message = 'Bu işlem için yetkiniz yok.') =>
  new AppError({ status: 403, code: 'INSUFFICIENT_SCOPE', message });

export const notFound = (message = 'Kayıt bulunamadı.') =>
  new AppError({ status: 404, code: 'NOT_FOUND', message });

export const serviceUnavailable = (
  retryAfter: number,
  message = 'Servis geçici olarak kullanılamıyor, lütfen daha sonra tekrar deneyin.',
) => new AppError({ status: 503, code: 'SERVER_ERROR', message, retryAfter });
