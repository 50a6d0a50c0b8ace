// The one validation approach: zod schemas, failures turned into 400 VALIDATION_ERROR with details.
import { z } from 'zod';
import { validationError, type ErrorDetail } from './errors.js';

export function zodDetails(error: z.ZodError): ErrorDetail[] {
  return error.issues.map((issue) => ({
    field: issue.path.length > 0 ? issue.path.join('.') : '(body)',
    message: issue.message,
  }));
}

export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(zodDetails(result.error));
  return result.data;
}

/**
 * zod's own messages (the `details` of a 400) in Turkish, as every other message partners' users
 * read. zod's configuration is process-wide; createApp applies it, so the gateway and every test
 * app answer the same.
 */
export function useTurkishValidationMessages(): void {
  z.config(z.locales.tr());
}
