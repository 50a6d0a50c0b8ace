// A resource's fields, written once: the zod shape is the API schema (and the OpenAPI component),
// its keys are the read-model columns selected, and the one generic mapper turns a read-model row
// into the API object (Decimal -> number, DATE -> YYYY-MM-DD, timestamptz -> ISO instant,
// BigInt -> number). Read-model columns carry the API's names, so nothing is spelled twice.
import { z } from 'zod';
import { dateOnly } from '#common/legacy-time.js';
import { markSubject, unwrapped, withClass } from './data-classes.js';

export interface Resource<S extends z.ZodRawShape> {
  schema: z.ZodObject<S, z.core.$loose>;
  /** Prisma `select` of exactly the API fields. */
  select: { [K in keyof S]: true };
  toApi: (row: Record<keyof S, unknown>) => z.infer<z.ZodObject<S, z.core.$loose>>;
}

/**
 * Whether the field's schema (nullable, optional or not) is a calendar day rather than an
 * instant.
 */
function isCalendarDay(schema: z.ZodType): boolean {
  return (unwrapped(schema) as { format?: unknown }).format === 'date';
}

function toApiValue(value: unknown, calendarDay: boolean): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return calendarDay ? dateOnly(value) : value.toISOString();
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'object' && 'toNumber' in value) {
    return (value as { toNumber(): number }).toNumber();
  }
  return value;
}

/**
 * `name` becomes the OpenAPI component; the specification allows additional properties. The
 * example is typed by the shape, and the tests validate it against the document's schema.
 */
export function defineResource<S extends z.ZodRawShape>(
  name: string,
  shape: S,
  example: z.output<z.ZodObject<S>>,
  options: {
    /**
     * The field naming the member whose data an object is (api/data-classes.ts, the recipients
     * record): `member_id` wherever the resource has one, unless said.
     */
    subject?: keyof S & string;
  } = {},
): Resource<S> {
  // Every field names its data class (api/data-classes.ts): `basic` where it declares none.
  const classed = Object.fromEntries(
    Object.entries(shape).map(([key, field]) => [key, withClass(field as z.ZodType)]),
  ) as unknown as S;
  const schema = z.looseObject(classed).meta({ id: name, examples: [example] });
  const subject = options.subject ?? ('member_id' in shape ? 'member_id' : undefined);
  if (subject) markSubject(schema, subject);
  const keys = Object.keys(shape);
  const calendarDays = new Set(keys.filter((k) => isCalendarDay(shape[k] as z.ZodType)));
  return {
    schema,
    select: Object.fromEntries(keys.map((k) => [k, true])) as { [K in keyof S]: true },
    toApi(row) {
      const out: Record<string, unknown> = {};
      for (const key of keys) {
        out[key] = toApiValue((row as Record<string, unknown>)[key], calendarDays.has(key));
      }
      return out as z.infer<typeof schema>;
    },
  };
}

/** `{success, data: Resource}` for single objects. */
export function itemResponse(resource: { schema: z.ZodType }, id: string) {
  return z.object({ success: z.boolean(), data: resource.schema }).meta({ id });
}
