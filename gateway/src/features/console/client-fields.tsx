// What an operator sets on a client, as the console's create and edit forms both ask it: scopes,
// the classes of members' personal data (api/data-classes.ts; `basic` always held), branch and
// limits. A new client shows them empty; an edited one, as they are.
import { DATA_CLASSES } from '#api/data-classes.js';
import { SCOPES } from '#api/scopes.js';
import type { Config } from '#common/config.js';
import { Check, Checks, Field } from '../../pages/form-parts.js';
import type { Messages } from '../../pages/messages/index.js';
import type { ApiClientRecord } from '../clients/clients.repository.js';
import { branchText, limitsText } from '../clients/clients.form.js';

type Shown = Pick<
  ApiClientRecord,
  | 'scopes'
  | 'data_classes'
  | 'branch_id'
  | 'rate_limit_minute'
  | 'rate_limit_hour'
  | 'rate_limit_day'
>;

/** A new client's fields: nothing ticked but `basic`, no branch, the default limits. */
const NEW_CLIENT: Shown = {
  scopes: [],
  data_classes: [],
  branch_id: null,
  rate_limit_minute: null,
  rate_limit_hour: null,
  rate_limit_day: null,
};

export function ClientFields(props: { client?: Shown; config: Config; t: Messages }) {
  const { t } = props;
  const client = props.client ?? NEW_CLIENT;
  const d = props.config.rateLimit;
  return (
    <>
      <Checks legend={t.common.scopes}>
        {SCOPES.map((scope) => (
          <Check name="scopes" value={scope} checked={client.scopes.includes(scope)}>
            <span>{scope}</span>
          </Check>
        ))}
      </Checks>
      <Checks legend={t.common.personalData}>
        {/* The disabled box is never sent: this one says the form carries the classes. */}
        <input type="hidden" name="data" value="basic" />
        {DATA_CLASSES.map((dataClass) => (
          <Check
            name="data"
            value={dataClass}
            checked={dataClass === 'basic' || client.data_classes.includes(dataClass)}
            disabled={dataClass === 'basic'}
          >
            {/* What each class covers (docs/decisions/0023-data-classes.md), for the operator. */}
            <span>
              {dataClass}: <span safe>{t.dataClasses.covers[dataClass]}</span>
            </span>
          </Check>
        ))}
      </Checks>
      <Field
        id="branch"
        label={t.clients.branch}
        inputmode="numeric"
        pattern="[0-9]*"
        value={branchText(client)}
      />
      <Field
        id="limits"
        label={t.clients.limits}
        hint={t.clients.limitsHint}
        value={limitsText(client)}
        placeholder={`${d.perMinute}/${d.perHour}/${d.perDay}`}
      />
    </>
  );
}

/** How a client's classes read in a list: the names, or a mark for an operator to review. */
export const dataClassesText = (
  client: { data_classes: readonly string[]; data_classes_review: boolean },
  t: Messages,
) => (client.data_classes_review ? t.dataClasses.review : client.data_classes.join(', '));
