// A webhook subscription as the console and the portal show it: its state, its events by state,
// and its tries: when, the event, the outcome, the status and duration, and the start of the
// endpoint's answer, as text (never rendered: it is whatever the partner's server sent).
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

/** A subscription's state in words: enabled, or disabled and why. */
export const stateOf = (s: { enabled: boolean; disabled_reason: string | null }) =>
  s.enabled ? 'enabled' : `disabled (${s.disabled_reason ?? 'no reason'})`;

/** The heads of the columns EventCounts fills. */
export const EVENT_COUNTS = ['Delivered', 'Failed', 'Pending'] as const;

/** A subscription's events by state, as the webhook service's figures count them. */
export function EventCounts(props: {
  events: { delivered: number; failed: number; pending: number };
}) {
  const { delivered, failed, pending } = props.events;
  return (
    <>
      {[delivered, failed, pending].map((count) => (
        <td class="num" safe>
          {String(count)}
        </td>
      ))}
    </>
  );
}

export function TriesTable(props: { tries: Try[]; total: number }) {
  if (props.tries.length === 0) return <p>No tries.</p>;
  return (
    <div class="scroll">
      <table id="deliveries">
        <caption safe>{`The newest ${props.tries.length} of ${props.total} tries`}</caption>
        <Heads
          names={[
            'Tried at (UTC)',
            'Event type',
            'Webhook id',
            'Outcome',
            'Status',
            'ms',
            'Answer (first characters)',
          ]}
          numeric={['Status', 'ms']}
        />
        <tbody>
          {props.tries.map((t) => (
            <tr>
              <td safe>{t.attempted_at.toISOString().replace('T', ' ').slice(0, 19)}</td>
              <td safe>{t.event.event_type}</td>
              <td>
                <code safe>{t.event.message_id}</code>
              </td>
              <td safe>{t.outcome}</td>
              <td class="num" safe>
                {t.status_code === null ? '—' : String(t.status_code)}
              </td>
              <td class="num" safe>
                {String(t.duration_ms)}
              </td>
              <td>
                <code safe>{(t.response ?? '').slice(0, ANSWER_CHARS)}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
