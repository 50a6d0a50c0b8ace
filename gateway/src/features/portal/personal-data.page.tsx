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
import { pageWords } from '../../pages/page-words.js';
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

const words = pageWords({
  en: {
    nav: 'Personal data',
    title: "Members' personal data",
    intro:
      'Your client receives the fields of the classes it holds, in every answer, change and webhook; the fields of the others are left out. The club grants classes: ask it for one your integration needs.',
    caption: 'Data classes and the fields in each',
    heads: ['Class', 'Covers', 'Your client', 'Fields'],
    held: 'Held',
    withheld: 'Withheld',
  },
  tr: {
    nav: 'Kişisel veriler',
    title: 'Üyelerin kişisel verileri',
    intro:
      'İstemciniz, sahip olduğu sınıfların alanlarını her yanıtta, değişiklikte ve webhook’ta alır; diğerlerinin alanları çıkarılır. Sınıfları kulüp verir: entegrasyonunuzun ihtiyaç duyduğu bir sınıf için kulübe başvurun.',
    caption: 'Veri sınıfları ve her birindeki alanlar',
    heads: ['Sınıf', 'Kapsam', 'İstemciniz', 'Alanlar'],
    held: 'Var',
    withheld: 'Yok',
  },
});

export const personalDataPage = definePage({
  area: PORTAL_AREA,
  path: `${PORTAL}/personal-data`,
  title: (language) => words(language).title,
  nav: (language) => words(language).nav,
  load: ({ who }) => Promise.resolve(clientClasses(who.client)),
  view: (mask, { t, locale }) => {
    const w = words({ locale });
    return (
      <>
        <p safe>{w.intro}</p>
        <table id="classes">
          <caption safe>{w.caption}</caption>
          <Heads names={w.heads} />
          <tbody>
            {DATA_CLASSES.map((dataClass) => (
              <tr>
                <td>
                  <code>{dataClass}</code>
                </td>
                <td safe>{t.dataClasses.covers[dataClass]}</td>
                <td safe>{holds(mask, dataClass) ? w.held : w.withheld}</td>
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
    );
  },
});
