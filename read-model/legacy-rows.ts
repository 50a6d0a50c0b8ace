// A batch of legacy rows as the MariaDB driver reads it with `rowsAsArray`: the column names
// once, each row's values by position. A first load maps its rows through a reused view over
// those values, so the driver builds no object per row and the mapping reads each value from the
// array (docs/decisions/0002, first load); every other path gets plain objects.
import type { LegacyRow } from './table-definition.js';

export interface LegacyBatch {
  /** Column names, in the order of each row's values. */
  columns: readonly string[];
  values: readonly (readonly unknown[])[];
}

/** A legacy row whose named fields read the values array it currently points at. */
export interface RowView {
  row: LegacyRow;
  /** Points the view at one row's values; returns the view itself. */
  at(values: readonly unknown[]): LegacyRow;
}

interface ViewInstance {
  values: readonly unknown[];
}

const viewClasses = new Map<string, new () => ViewInstance>();

/**
 * One class per column list, built once: a getter per column reading its position, so the
 * table's `map(row)`, written once by field name, reads positional values with no object made
 * per row. The view is reused row after row: nothing may keep it.
 */
export function rowView(columns: readonly string[]): RowView {
  const key = columns.join('\t');
  let View = viewClasses.get(key);
  if (!View) {
    const created = class {
      values: readonly unknown[] = [];
    };
    columns.forEach((name, index) => {
      Object.defineProperty(created.prototype, name, {
        get(this: ViewInstance) {
          return this.values[index];
        },
        enumerable: true,
      });
    });
    View = created;
    viewClasses.set(key, View);
  }
  const view = new View();
  const row = view as unknown as LegacyRow;
  return {
    row,
    at(values) {
      view.values = values;
      return row;
    },
  };
}

/** The batch's rows as plain objects, for the paths that keep rows (upserts, rejects). */
export function legacyRowObjects(batch: LegacyBatch): LegacyRow[] {
  const { columns } = batch;
  return batch.values.map((values) => {
    const row: LegacyRow = {};
    for (let i = 0; i < columns.length; i++) row[columns[i]!] = values[i];
    return row;
  });
}
