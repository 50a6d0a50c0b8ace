// Form fields and page addresses as zod reads them, for the schemas pages declare (page.tsx). A
// form sends every field as text: an input left empty as '', checkboxes of one name as one string
// or a list, none ticked as nothing; express.urlencoded hands them over so.
import { z } from 'zod';

const blankToMissing = (value: unknown) => (value === '' ? undefined : value);

/** A text input: left empty, it is missing. */
export const text = z.preprocess(blankToMissing, z.string().optional());

/** A text input as typed, trimmed; '' when left empty or missing. */
export const trimmed = z.preprocess((value) => value ?? '', z.string().trim());

/** Checkboxes of one name: the ticked values, none ticked missing. */
export const ticked = z.preprocess(
  (value) => (typeof value === 'string' ? [value] : value),
  z.array(z.string()).optional(),
);

/** Checkboxes of one name as the operator services read a list: `a,b`, none ticked missing. */
export const tickedList = z.preprocess(
  (value) => (Array.isArray(value) ? value.join(',') : blankToMissing(value)),
  z.string().optional(),
);

/** A record's id in a page's address: a positive integer of at most nine digits. */
export const positiveId = z
  .string()
  .regex(/^\d{1,9}$/)
  .transform(Number)
  .refine((id) => id > 0);

/**
 * One of `values` in a query; anything else, or nothing, is `fallback` (a filter's choice the
 * page always has).
 */
export const choice = <const T extends readonly [string, ...string[]]>(
  values: T,
  fallback: T[number],
) => z.enum(values).catch(fallback);

/**
 * The API's body `schema` as a form sends it (the portal's forms post what the API's endpoints
 * take): a field left empty is left out, and a list field of `lists` ticked once is a list.
 */
export function formOf<T extends z.ZodType>(schema: T, lists: readonly string[] = []) {
  return z.preprocess((sent) => {
    const fields: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(sent as Record<string, unknown>)) {
      if (value !== '') fields[name] = lists.includes(name) ? ticked.parse(value) : value;
    }
    return fields;
  }, schema);
}
