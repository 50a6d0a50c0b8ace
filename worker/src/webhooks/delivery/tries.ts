// One job's tries: its events still due are let into their subscriptions' shares (shares.ts: one
// partner's slow or silent endpoint holds its share of a process's slots and no more; a try
// beyond the share holds none, it is queued again for when its subscription is likely to have
// room), their recipients recorded, and each try rendered, signed, sent and judged.
import { bodyFor, erasureBody, receivedIn } from '#api/webhooks/bodies.js';
import { clientClasses, type Received } from '#api/data-classes.js';
import { tracing } from '#common/traces.js';
import type { TryResult } from '#api/webhooks/send.js';
import { signedHeaders } from '#api/webhooks/signing.js';
import type { Entry, Shares } from '../shares.js';
import type { Deliverer, EventToSend } from './deliverer.js';
import { dueEvents, withSecrets } from './due.js';
import { judge } from './policy.js';
import { record, turnAway, type Turned } from './record.js';

/** A try let into its subscription's share, with the secrets that sign it. */
interface Admitted {
  event: EventToSend;
  secrets: string[];
  entry: Entry;
}

/** One job: its events still due are tried, each as its subscription's share lets it. */
export async function deliver(d: Deliverer, eventIds: readonly string[]) {
  const due = await dueEvents(d, eventIds);
  const signable = withSecrets(d, due);
  if (signable.length === 0) return;
  const { admitted, turned } = enterShares(d.shares, signable);
  for (const { event } of admitted) d.taken.add(event.id);
  try {
    await recordReceived(d, admitted);
    await tryAndRecord(d, admitted, turned);
  } finally {
    for (const { event } of admitted) d.taken.delete(event.id);
  }
}

/**
 * The recipients record of the tries about to be made, written before any is sent
 * (api/recipients.ts): a worker that dies after sending never leaves a recipient unrecorded.
 */
async function recordReceived(d: Pick<Deliverer, 'recipients'>, admitted: readonly Admitted[]) {
  const byClient = new Map<number, Received>();
  for (const { event } of admitted) {
    // The sandbox's members are generated: nobody's data to record, nor to erase.
    if (event.client.sandbox) continue;
    const received: Received = byClient.get(event.client_id) ?? new Map<number, number>();
    receivedIn(event.body, clientClasses(event.client), received);
    byClient.set(event.client_id, received);
  }
  // Nothing to wait for where every member and client is recorded already.
  const writes = [...byClient].flatMap(
    ([clientId, received]) => d.recipients.record(clientId, received) ?? [],
  );
  await Promise.all(writes);
}

/** Each a place in its subscription's share at once, or none: then it is turned away. */
function enterShares(
  shares: Shares,
  signable: readonly { event: EventToSend; secrets: string[] }[],
): { admitted: Admitted[]; turned: Turned[] } {
  const entered = signable.map((s) => ({ ...s, entry: shares.enter(s.event.subscription_id) }));
  const admitted = entered.flatMap(({ entry, ...s }) => ('line' in entry ? [{ ...s, entry }] : []));
  const turned = entered.flatMap(({ event, entry }) =>
    'line' in entry ? [] : [{ event, away: entry }],
  );
  return { admitted, turned };
}

/**
 * The tries let into their subscription's share are made, each when one of the process's places
 * is free; the try itself and its judgement are as they ever were. Those turned away are queued
 * again meanwhile, not when this job's sends end.
 */
async function tryAndRecord(
  d: Deliverer,
  admitted: readonly Admitted[],
  turned: readonly Turned[],
) {
  const sends = Promise.all(
    admitted.map(({ event, secrets, entry }) =>
      d.shares
        .run(
          entry,
          () => d.sending(() => makeTry(d, event, secrets)),
          (t) => t.result.outcome === 'timeout',
        )
        .then(({ sent, backOffUntil }) => ({ ...sent, backOffUntil })),
    ),
  );
  let tried;
  try {
    await turnAway(d, turned);
  } finally {
    tried = await sends;
  }
  if (tried.length === 0) return;
  await record(d, tried);
}

/**
 * One try: rendered for the classes of personal data the client holds now, signed as it starts,
 * sent, and judged.
 */
async function makeTry(
  d: Pick<Deliverer, 'sender' | 'retryScheduleMs'>,
  event: EventToSend,
  secrets: string[],
) {
  const now = Date.now();
  const body = event.erasure
    ? erasureBody(event.body, event.erasure)
    : bodyFor(event.body, clientClasses(event.client));
  const sent = { ...event, body };
  const headers = signedHeaders({ ...sent, secrets }, new Date(now));
  const result = await sendTraced(d, sent, headers);
  // The schedule counts from the end of this try.
  return { event, result, ...judge(d.retryScheduleMs, event, result, Date.now()) };
}

/**
 * One try's POST. With tracing on, it is a span of its own (its HTTP request a child), linked
 * to the member write whose change the event carries, if that write was traced.
 */
function sendTraced(
  d: Pick<Deliverer, 'sender'>,
  event: EventToSend,
  headers: Record<string, string>,
): Promise<TryResult> {
  const send = () => d.sender.send(event.url, event.body, headers);
  const traces = tracing();
  if (!traces) return send();
  const attributes = {
    'webhook.event_id': event.id,
    'webhook.subscription_id': event.subscription_id,
    'webhook.attempt': event.attempts + 1,
  };
  return traces.inSpan('webhook delivery', 'internal', attributes, () => {
    if (event.trace_parent) traces.addLinks([event.trace_parent]);
    return send();
  });
}
