// The classes of members' personal data a client receives (api/data-classes.ts), as the console's
// create and edit forms show them: `basic` always held, one checkbox per personal class.
import { DATA_CLASSES } from '#api/data-classes.js';
import type { Messages } from '../../pages/messages/index.js';

// What each class covers, for the operator choosing (docs/decisions/0023-data-classes.md), is the
// catalogue's `dataClasses.covers`, one entry per class.
const covers = (t: Messages, dataClass: (typeof DATA_CLASSES)[number]) =>
  t.dataClasses.covers[dataClass];

export function DataClassesField(props: { held: readonly string[]; t: Messages }) {
  return (
    <fieldset>
      <legend safe>{props.t.common.personalData}</legend>
      {/* The disabled box is never sent: this one says the form carries the classes. */}
      <input type="hidden" name="data" value="basic" />
      <div class="scopes">
        {DATA_CLASSES.map((dataClass) => (
          <label class="check">
            <input
              type="checkbox"
              name="data"
              value={dataClass}
              checked={dataClass === 'basic' || props.held.includes(dataClass)}
              disabled={dataClass === 'basic'}
            />
            <span>
              {dataClass}: <span safe>{covers(props.t, dataClass)}</span>
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** How a client's classes read in a list: the names, or a mark for an operator to review. */
export const dataClassesText = (
  client: { data_classes: readonly string[]; data_classes_review: boolean },
  t: Messages,
) => (client.data_classes_review ? t.dataClasses.review : client.data_classes.join(', '));
