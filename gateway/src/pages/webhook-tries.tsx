// A webhook subscription as the console and the portal show it: its state, its events by state,
// and its tries: when, the event, the outcome, the status and duration, and the start of the
// endpoint's answer, as text (never rendered: it is whatever the partner's server sent).
import { At } from './language.js';
import type { Format } from './locale.js';
import type { Messages } from './messages/index.js';
import { Heads } from './tables.js';

/** The newest tries a page shows. */
export const TRIES_SHOWN = 50;
const ANSWER_CHARS = 200;

/**
 * What the table shows of a try: a webhook_attempts row with its event, as the webhook service
 * reads them. pages/ imports no feature, so the shape is stated here.
 */
interface Try {
  attempted_at: Date;
  event: { event_type: string; message_id: string };
  outcome: string;
  status_code: number | null;
  duration_ms: number;
  response: string | null;
}

/** A subscription's state in words: enabled, or disabled and why (the reason is an identifier). */
export const stateOf = (t: Messages, s: { enabled: boolean; disabled_reason: string | null }) =>
  s.enabled ? t.webhooks.enabled : t.webhooks.disabled(s.disabled_reason);

/** A subscription's events by state, as the webhook service's figures count them. */
export function EventCounts(props: {
  events: { delivered: number; failed: number; pending: number };
  format: Format;
}) {
  const { delivered, failed, pending } = props.events;
  return (
    <>
      {[delivered, failed, pending].map((count) => (
        <td class="num" safe>
          {props.format.number(count)}
        </td>
      ))}
    </>
  );
}

/** A subscription's latest tries, then the way back to the subscriptions' list at `back`. */
export function SubscriptionTries(props: {
  tries: Try[];
  total: number;
  back: string;
  t: Messages;
  format: Format;
}) {
  return (
    <>
      <TriesTable tries={props.tries} total={props.total} t={props.t} format={props.format} />
      <p>
        <a href={props.back} safe>
          {props.t.common.backToSubscriptions}
        </a>
      </p>
    </>
  );
}

function TriesTable(props: { tries: Try[]; total: number; t: Messages; format: Format }) {
  const { t, format } = props;
  if (props.tries.length === 0) return <p safe>{t.webhooks.noTries}</p>;
  const heads = t.webhooks.triesHeads;
  return (
    <div class="scroll">
      <table id="deliveries">
        <caption safe>
          {t.webhooks.triesCaption(format.number(props.tries.length), format.number(props.total))}
        </caption>
        <Heads names={heads} numeric={[heads[4]!, heads[5]!]} />
        <tbody>
          {props.tries.map((a) => (
            <tr>
              <td>
                <At at={a.attempted_at} text={format.utc(a.attempted_at)} />
              </td>
              <td safe>{a.event.event_type}</td>
              <td>
                <code safe>{a.event.message_id}</code>
              </td>
              <td safe>{a.outcome}</td>
              <td class="num" safe>
                {a.status_code === null ? '—' : String(a.status_code)}
              </td>
              <td class="num" safe>
                {format.number(a.duration_ms)}
              </td>
              <td>
                <code safe>{(a.response ?? '').slice(0, ANSWER_CHARS)}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
