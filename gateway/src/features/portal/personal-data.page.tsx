// What of the members' personal data the partner's client receives (docs/decisions/0023-data-
// classes.md): every class, what it covers, whether the client holds it, and each field of each
// resource in it, read from the resources' own declarations, so the page says what the API does.
import {
  DATA_CLASSES,
  clientClasses,
  fieldClasses,
  holds,
  type DataClass,
} from '#api/data-classes.js';
import { branchResource } from '#api/resources/branches.js';
import { installmentPlanResource, transactionResource } from '#api/resources/financial.js';
import { memberPackageResource, memberResource } from '#api/resources/members.js';
import { notificationResource } from '#api/resources/notifications.js';
import { presenceResource } from '#api/resources/presence.js';
import { privateLessonResource } from '#api/resources/private-lessons.js';
import { staffResource } from '#api/resources/staff.js';
import { PORTAL, PORTAL_AREA } from '../../pages/areas.js';
import { Heads } from '../../pages/tables.js';
import { definePage } from '../../page-services.js';

/** The resources that carry personal data, by the name the API documents them under. */
const RESOURCES = {
  Member: memberResource,
  MemberPackage: memberPackageResource,
  Transaction: transactionResource,
  InstallmentPlan: installmentPlanResource,
  PresenceLog: presenceResource,
  PrivateLesson: privateLessonResource,
  Notification: notificationResource,
  Staff: staffResource,
  Branch: branchResource,
};

/**
 * Each personal class's fields, `Resource.field`, in the resources' order; computed once. `basic`
 * is every other field, which its row's words describe.
 */
const FIELDS_BY_CLASS: Record<DataClass, string[]> = Object.fromEntries(
  DATA_CLASSES.map((dataClass) => [
    dataClass,
    Object.entries(RESOURCES).flatMap(([name, resource]) =>
      Object.entries(fieldClasses(resource.schema))
        .filter(([, fieldClass]) => fieldClass === dataClass && dataClass !== 'basic')
        .map(([field]) => `${name}.${field}`),
    ),
  ]),
) as Record<DataClass, string[]>;

export const personalDataPage = definePage({
  area: PORTAL_AREA,
  path: `${PORTAL}/personal-data`,
  title: ({ t }) => t.personalData.title,
  nav: ({ t }) => t.nav.personalData,
  load: ({ who }) => Promise.resolve(clientClasses(who.client)),
  view: (mask, { t }) => (
    <>
      <p safe>{t.personalData.intro}</p>
      <table id="classes">
        <caption safe>{t.personalData.caption}</caption>
        <Heads names={t.personalData.heads} />
        <tbody>
          {DATA_CLASSES.map((dataClass) => (
            <tr>
              <td>
                <code>{dataClass}</code>
              </td>
              <td safe>{t.dataClasses.covers[dataClass]}</td>
              <td safe>{holds(mask, dataClass) ? t.personalData.held : t.personalData.withheld}</td>
              <td>
                {FIELDS_BY_CLASS[dataClass].length === 0 ? (
                  ''
                ) : (
                  <code safe>{FIELDS_BY_CLASS[dataClass].join(', ')}</code>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  ),
});
