// Query and path parameters shared by the endpoints, validated once: a bad value is 400
// VALIDATION_ERROR with details, never ignored or clamped.
import { z } from 'zod';
import { foldTurkish, phoneSearchDigits } from '#common/turkish.js';

/** The largest value of the read model's and the dashboard's `int` id columns. */
export const MAX_ID = 2_147_483_647;

const DECIMAL_DIGITS = /^[0-9]+$/;

/**
 * The one parser of whole numbers given in a path or a query string (ids, integer filters, page,
 * limit): decimal digits alone, `^[0-9]+$`. Number()'s other spellings (`1e1`, `0x10`, `1.0`,
 * ` 1`, `+1`, `-1`, an empty value), which z.coerce.number() took as 10, 16, 1 or 0, are 400
 * VALIDATION_ERROR naming the field, as is a value outside `min`..`max` (so an id beyond the int
 * columns never reaches a database). Leading zeros are digits: `007` is 7. The OpenAPI document
 * describes the number a client sends (`type: integer` with its bounds); `meta` goes on that
 * number, where the document's generator keeps its examples.
 */
export function decimalInteger(bounds: { min: number; max: number }, meta?: z.GlobalMeta) {
  const number = z.int().min(bounds.min).max(bounds.max);
  return z.preprocess(
    (value, ctx) => {
      if (typeof value === 'string' && DECIMAL_DIGITS.test(value)) return Number(value);
      // Already a number: a caller in code, not a request.
      if (typeof value === 'number') return value;
      ctx.addIssue({
        code: 'custom',
        message: 'Yalnızca rakamlardan (0-9) oluşan bir tam sayı olmalıdır.',
        input: value,
      });
      return z.NEVER;
    },
    meta ? number.meta(meta) : number,
  );
}

export const id = decimalInteger({ min: 1, max: MAX_ID });
export const optionalId = id.optional();

export const idParams = z.object({
  id: decimalInteger({ min: 1, max: MAX_ID }, { description: 'Kayıt numarası', examples: [3] }),
});

/** `true` / `false` exactly. */
export const booleanFilter = z
  .enum(['true', 'false'])
  .transform((v) => v === 'true')
  .optional();

/** An Istanbul calendar day, `YYYY-MM-DD`, that exists. */
export const dayFilter = z.iso
  .date()
  .meta({ description: 'İstanbul takvim günü (YYYY-MM-DD), dahil', examples: ['2026-03-01'] })
  .optional();

export const searchFilter = z
  .string()
  .trim()
  .min(1)
  .max(100)
  // A term of combining marks alone folds to nothing, and the empty pattern would match every
  // row: a search that asks for nothing is a mistake, as an empty one is.
  .refine((term) => foldTurkish(term).length > 0, {
    message: 'Arama terimi en az bir harf, rakam veya işaret içermelidir.',
  })
  .meta({
    description:
      'Türkçe kurallarına göre büyük/küçük harf ve aksan duyarsız arama; yalnızca aksan işaretlerinden oluşan (katlanınca boş kalan) terim 400 VALIDATION_ERROR',
    examples: ['ayşe'],
  })
  .optional();

/** Query schemas with start_date/end_date: an empty range is a mistake, not an empty answer. */
export function checkDateRange(
  value: { start_date?: string | undefined; end_date?: string | undefined },
  ctx: z.RefinementCtx,
) {
  if (value.start_date && value.end_date && value.start_date > value.end_date) {
    ctx.addIssue({
      code: 'custom',
      path: ['end_date'],
      message: 'end_date, start_date değerinden önce olamaz.',
    });
  }
}

const istanbulMidnight = (day: string) => new Date(`${day}T00:00:00+03:00`);

function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** Inclusive Istanbul days -> a half-open range of instants, for timestamptz columns. */
export function instantRange(start: string | undefined, end: string | undefined) {
  if (!start && !end) return undefined;
  return {
    ...(start ? { gte: istanbulMidnight(start) } : {}),
    ...(end ? { lt: istanbulMidnight(nextDay(end)) } : {}),
  };
}

/** LIKE's own wildcards in a user's search are plain characters. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The Prisma condition for a Turkish-aware search over a folded `search_text` column. */
export function foldedSearch(search: string) {
  return { search_text: { contains: escapeLike(foldTurkish(search)) } };
}

/** Digits of a phone search, LIKE-safe, or null when the search is not a phone number. */
export function phoneDigitsSearch(search: string) {
  const digits = phoneSearchDigits(search);
  return digits ? { phone_digits: { contains: digits } } : null;
}
