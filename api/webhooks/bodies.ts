// A webhook body as its receiving client may see it: stored whole when dispatched, one body per
// change for every follower, and rendered when each try is sent for the classes of personal data
// the client holds then (api/data-classes.ts), so a narrower grant applies to events already
// queued and to replays. Rendered once per body and set of classes, not per subscription.
import { changeTypeNamed } from '../changes/change-types.js';
import { ALL_CLASSES, projectionFor, type ClassMask } from '../data-classes.js';

/** Bodies rendered lately, per set of classes: a fan-out sends one body to many clients. */
const RENDERED_PER_SET = 2_000;
const rendered = new Map<ClassMask, Map<string, string>>();

function render(body: string, classes: ClassMask): string {
  const event = JSON.parse(body) as { data?: { type?: unknown; data?: unknown } };
  const change = event.data;
  const type = typeof change?.type === 'string' ? changeTypeNamed(change.type) : undefined;
  // A delete (data null), or a body of no feed type (a test event), holds nothing to withhold.
  if (!change || !type || change.data === null || typeof change.data !== 'object') return body;
  const withheld = projectionFor(type.resource.schema, classes);
  const object = withheld(change.data);
  if (object === change.data) return body;
  change.data = object;
  return JSON.stringify(event);
}

/** `body` as a client holding `classes` receives it. */
export function bodyFor(body: string, classes: ClassMask): string {
  if (classes === ALL_CLASSES) return body;
  let bySet = rendered.get(classes);
  if (!bySet) rendered.set(classes, (bySet = new Map<string, string>()));
  let out = bySet.get(body);
  if (out === undefined) {
    out = render(body, classes);
    if (bySet.size >= RENDERED_PER_SET) bySet.delete(bySet.keys().next().value!);
    bySet.set(body, out);
  }
  return out;
}
