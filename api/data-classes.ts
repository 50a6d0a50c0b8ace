// Members' personal data, granted by class (docs/decisions/0023-data-classes.md). Every field of
// every resource belongs to one class, declared beside the field (api/resources/*.ts) and shown in
// the OpenAPI document as `x-data-class`; a client holds `basic` and the classes granted to it,
// and a field of a class it does not hold never reaches it. This file is the one list of classes
// and the one way to withhold: projections compiled from a schema, per set of classes held.
import { z } from 'zod';

export const DATA_CLASSES = [
  'basic',
  'contact',
  'identity',
  'address',
  'access',
  'finance',
  'staff',
] as const;
export type DataClass = (typeof DATA_CLASSES)[number];
export type PersonalClass = Exclude<DataClass, 'basic'>;

/** The OpenAPI extension naming a field's class. */
const CLASS_KEY = 'x-data-class';

export const isDataClass = (value: string): value is DataClass =>
  (DATA_CLASSES as readonly string[]).includes(value);

/**
 * A field of personal class `dataClass`; any field not so marked is `basic`. It is optional in
 * the schema: absent from whatever reaches a client that does not hold its class.
 */
export function personal<T extends z.ZodType>(
  dataClass: PersonalClass,
  schema: T,
): z.ZodOptional<T> {
  return schema.optional().meta({ [CLASS_KEY]: dataClass });
}

/** The class a field's schema declares; `undefined` for a schema that declares none. */
export function declaredClass(schema: z.ZodType): DataClass | undefined {
  const value = z.globalRegistry.get(schema)?.[CLASS_KEY];
  return typeof value === 'string' && isDataClass(value) ? value : undefined;
}

/** The field marked `basic` unless it declares a class already: every field names one. */
export const withClass = <T extends z.ZodType>(schema: T): T =>
  declaredClass(schema) ? schema : schema.meta({ [CLASS_KEY]: 'basic' });

/**
 * A set of classes as a bit mask, `basic` always in it: the key projections are cached under,
 * and what a request's authentication carries.
 */
export type ClassMask = number;
const bit = (dataClass: DataClass) => 1 << DATA_CLASSES.indexOf(dataClass);
export const ALL_CLASSES: ClassMask = (1 << DATA_CLASSES.length) - 1;

export function maskOf(classes: readonly string[]): ClassMask {
  let mask = bit('basic');
  for (const name of classes) if (isDataClass(name)) mask |= bit(name);
  return mask;
}

export const holds = (mask: ClassMask, dataClass: DataClass) => (mask & bit(dataClass)) !== 0;

/** The classes of a mask, in the list's order. */
export const classesOf = (mask: ClassMask): DataClass[] =>
  DATA_CLASSES.filter((dataClass) => holds(mask, dataClass));

/**
 * The classes a client holds: those granted to it, and `basic`. A client made before grants
 * existed holds every class, marked for review (`data_classes_review`) until an operator saves
 * its grants.
 */
export const clientClasses = (client: { data_classes: readonly string[] }): ClassMask =>
  maskOf(client.data_classes);

/** The classes named in `a,b` text, and the names that are none. */
export function parseClassList(value: string): { classes: DataClass[]; unknown: string[] } {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return {
    classes: DATA_CLASSES.filter((dataClass) => names.includes(dataClass)),
    unknown: names.filter((name) => !isDataClass(name)),
  };
}

/** A value as a client holding `mask` may see it; the identity where nothing is withheld. */
export type Projection = (value: unknown) => unknown;

/** The schema under optional, nullable, default and the like. */
export function unwrapped(schema: z.ZodType): z.ZodType {
  let inner = schema;
  while (
    inner instanceof z.ZodNullable ||
    inner instanceof z.ZodOptional ||
    inner instanceof z.ZodDefault
  ) {
    inner = inner.unwrap() as z.ZodType;
  }
  return inner;
}

/**
 * The projection of `schema`'s values for `mask`, or null when the schema carries no field the
 * mask withholds. Built from the schema's tree: an object keeps the fields whose class it holds
 * (its other keys, such as a response's `pagination`, pass as they are), an array projects each
 * element.
 */
function compile(schema: z.ZodType, mask: ClassMask): Projection | null {
  const inner = unwrapped(schema);
  if (inner instanceof z.ZodArray) {
    const element = compile(inner.element as z.ZodType, mask);
    if (!element) return null;
    return (value) => (Array.isArray(value) ? value.map(element) : value);
  }
  if (!(inner instanceof z.ZodObject)) return null;
  const shape: Record<string, z.ZodType> = inner.shape;
  const fields = Object.entries(shape);
  const dropped = new Set<string>();
  const nested = new Map<string, Projection>();
  for (const [key, field] of fields) {
    const dataClass = declaredClass(field);
    if (dataClass && !holds(mask, dataClass)) dropped.add(key);
    else {
      const projection = compile(field, mask);
      if (projection) nested.set(key, projection);
    }
  }
  if (dropped.size === 0 && nested.size === 0) return null;
  return (value) => {
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      if (dropped.has(key)) continue;
      const projection = nested.get(key);
      out[key] = projection ? projection(field) : field;
    }
    return out;
  };
}

const identity: Projection = (value) => value;
const compiled = new WeakMap<z.ZodType, Map<ClassMask, Projection>>();

/**
 * How a value of `schema` reaches a client holding `mask`: the one way anything withholds,
 * whether an endpoint's answer, a feed page's `data` or a webhook body. Compiled once per schema
 * and set of classes.
 */
export function projectionFor(schema: z.ZodType, mask: ClassMask): Projection {
  let bySet = compiled.get(schema);
  if (!bySet) compiled.set(schema, (bySet = new Map<ClassMask, Projection>()));
  let projection = bySet.get(mask);
  if (!projection) bySet.set(mask, (projection = compile(schema, mask) ?? identity));
  return projection;
}

/** The classes of `schema`'s fields at the top level (an object's or an array's elements'). */
export function fieldClasses(schema: z.ZodType): Record<string, DataClass> {
  const inner = unwrapped(schema);
  const object = inner instanceof z.ZodArray ? unwrapped(inner.element as z.ZodType) : inner;
  if (!(object instanceof z.ZodObject)) return {};
  return Object.fromEntries(
    Object.entries(object.shape as Record<string, z.ZodType>).map(([key, field]) => [
      key,
      declaredClass(field) ?? 'basic',
    ]),
  );
}

/**
 * Resources whose objects are a member's data, and the field naming the member: `id` for the
 * member itself, `member_id` for a member's packages, transactions, visits... (defineResource).
 */
const subjects = new WeakMap<z.ZodType, string>();

export function markSubject(schema: z.ZodType, field: string): void {
  subjects.set(schema, field);
}

/** Members whose data a value carries, each with the classes of it that it carries. */
export type Received = Map<number, ClassMask>;
type Collect = (value: unknown, into: Received) => void;

/** A member's classes in an object: those of its fields the mask holds, staff's aside. */
function classesCarried(shape: Record<string, z.ZodType>, mask: ClassMask): ClassMask {
  let carried = bit('basic');
  for (const field of Object.values(shape)) carried |= bit(declaredClass(field) ?? 'basic');
  // Staff fields (a transaction's staff name) are the staff member's data, not the member's.
  return carried & mask & ~bit('staff');
}

function compileCollect(schema: z.ZodType, mask: ClassMask): Collect | null {
  const inner = unwrapped(schema);
  if (inner instanceof z.ZodArray) {
    const element = compileCollect(inner.element as z.ZodType, mask);
    if (!element) return null;
    return (value, into) => {
      if (Array.isArray(value)) for (const item of value) element(item, into);
    };
  }
  if (!(inner instanceof z.ZodObject)) return null;
  const shape: Record<string, z.ZodType> = inner.shape;
  const subject = subjects.get(schema) ?? subjects.get(inner);
  const carried = subject ? classesCarried(shape, mask) : 0;
  const nested: [string, Collect][] = [];
  for (const [key, field] of Object.entries(shape)) {
    const collect = compileCollect(field, mask);
    if (collect) nested.push([key, collect]);
  }
  if (!subject && nested.length === 0) return null;
  return (value, into) => {
    if (value === null || typeof value !== 'object') return;
    const object = value as Record<string, unknown>;
    const id = subject ? object[subject] : undefined;
    if (typeof id === 'number') into.set(id, (into.get(id) ?? 0) | carried);
    for (const [key, collect] of nested) collect(object[key], into);
  };
}

const NOTHING: Collect = () => undefined;
const collectors = new WeakMap<z.ZodType, Map<ClassMask, Collect>>();

/**
 * Adds to `into` the members whose data `value` (of `schema`, as a client holding `mask`
 * receives it) carries: what the recipients record keeps. Compiled once per schema and mask.
 */
export function collectReceived(
  schema: z.ZodType,
  mask: ClassMask,
  value: unknown,
  into: Received,
): void {
  let byMask = collectors.get(schema);
  if (!byMask) collectors.set(schema, (byMask = new Map<ClassMask, Collect>()));
  let collect = byMask.get(mask);
  if (!collect) byMask.set(mask, (collect = compileCollect(schema, mask) ?? NOTHING));
  collect(value, into);
}
