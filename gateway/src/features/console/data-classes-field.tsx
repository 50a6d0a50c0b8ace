// The classes of members' personal data a client receives (api/data-classes.ts), as the console's
// create and edit forms show them: `basic` always held, one checkbox per personal class.
import { DATA_CLASSES } from '#api/data-classes.js';

/** What each class covers, for the operator choosing (docs/decisions/0023-data-classes.md). */
const COVERS: Record<(typeof DATA_CLASSES)[number], string> = {
  basic: 'ids, names, member number, branch, status, dates (always)',
  contact: 'phone, e-mail',
  identity: 'tc_no, birth date, gender',
  address: 'address',
  access: 'QR code (opens the doors)',
  finance: 'balance',
  staff: "staff names and contacts, a branch's manager",
};

export function DataClassesField(props: { held: readonly string[] }) {
  return (
    <fieldset>
      <legend>Members' personal data</legend>
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
              {dataClass}: <span safe>{COVERS[dataClass]}</span>
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** How a client's classes read in a list: the names, or a mark for an operator to review. */
export const dataClassesText = (client: {
  data_classes: readonly string[];
  data_classes_review: boolean;
}) => (client.data_classes_review ? 'all classes: review' : client.data_classes.join(', '));
