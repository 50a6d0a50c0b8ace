// A webhook body as its receiving client may see it: stored whole when dispatched, one body per
// change for every follower, and rendered when each try is sent for the classes of personal data
// the client holds then (api/data-classes.ts), so a narrower grant applies to events already
// queued and to replays. Rendered once per body and set of classes, not per subscription.
import type { Change } from '../changes/change-page.js';
import { changeTypeNamed } from '../changes/change-types.js';
import { asErasure, type ToldErasure } from '../changes/erasures.js';
import {
  ALL_CLASSES,
  collectReceived,
  projectionFor,
  type ClassMask,
  type Received,
} from '../data-classes.js';

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

/** The members whose data `body` carries to a client holding `classes` (the recipients record). */
export function receivedIn(body: string, classes: ClassMask, into: Received): void {
  const change = (JSON.parse(body) as { data?: { type?: unknown; data?: unknown } }).data;
  const type = typeof change?.type === 'string' ? changeTypeNamed(change.type) : undefined;
  if (type && change?.data) collectReceived(type.resource.schema, classes, change.data, into);
}

/**
 * A member's deletion as its recipient is told of its erasure: event type `members.erase`, the
 * change's op `erase` and the receipt for data (api/changes/erasures.ts).
 */
export function erasureBody(body: string, erasure: ToldErasure): string {
  const event = JSON.parse(body) as { type: string; data: Change };
  // json_build_object gives the instant as text.
  const told = { member_no: erasure.member_no, erased_at: new Date(erasure.erased_at) };
  return JSON.stringify({ ...event, type: 'members.erase', data: asErasure(event.data, told) });
}
