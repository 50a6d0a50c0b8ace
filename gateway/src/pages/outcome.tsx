// What a page shows above its content after one of its forms: what was done, a secret shown this
// once, what a test event came to, or a refusal. Every refusal a page can meet becomes its notice
// here, in one way: the operator services' OperatorRefusal (cli/operator-refusal.ts), the API's
// AppError the partner's services throw (its status and details), and a form's or address's zod
// validation failure.
import { ZodError } from 'zod';
import { OperatorRefusal } from '../cli/operator-refusal.js';
import { AppError } from '../http/errors.js';
import { zodDetails } from '../http/validation.js';
import { Notice } from './layout.js';

/**
 * A test event's outcome as the webhook service answers it (features/webhooks/): pages/ imports
 * no feature, so the shape is stated here.
 */
export interface TestResult {
  outcome: string;
  status_code: number | null;
  duration_ms: number;
  response: string | null;
}

export type Outcome =
  | { kind: 'error' | 'done'; message: string }
  | {
      kind: 'secret';
      message: string;
      /** A further word below the message (what else the change did). */
      note?: string | undefined;
      /** What is shown this once, each under its label. */
      shown: readonly (readonly [label: string, value: string])[];
    }
  | { kind: 'test'; result: TestResult };

/** A refusal as a page shows it, with the status of the answer. */
export interface Refusal {
  outcome: { kind: 'error'; message: string };
  status: number;
}

const refused = (message: string, status: number): Refusal => ({
  outcome: { kind: 'error', message },
  status,
});

const detailed = (message: string, details: readonly { field: string; message: string }[]) =>
  [message, ...details.map((d) => `${d.field}: ${d.message}`)].join(' ');

/** The refusal `error` is, or null for an error no page answers (a fault: the area's 500). */
export function refusalOf(error: unknown): Refusal | null {
  if (error instanceof OperatorRefusal) return refused(error.message, 400);
  if (error instanceof AppError)
    return refused(detailed(error.message, error.details ?? []), error.status);
  if (error instanceof ZodError)
    return refused(detailed('The form is not valid.', zodDetails(error)), 400);
  return null;
}

function TestNotice(props: { result: TestResult }) {
  const { result } = props;
  return (
    <Notice kind={result.outcome === 'delivered' ? 'done' : 'error'}>
      <p id="test-outcome" safe>
        {`Test event ${result.outcome}: status ${result.status_code ?? 'none'}, ${result.duration_ms} ms.`}
      </p>
      <p>The endpoint's answer:</p>
      <pre>
        <code id="test-response" safe>
          {result.response ?? ''}
        </code>
      </pre>
    </Notice>
  );
}

export function OutcomeNotice(props: { outcome: Outcome | undefined }) {
  const { outcome } = props;
  if (!outcome) return '';
  if (outcome.kind === 'test') return <TestNotice result={outcome.result} />;
  if (outcome.kind !== 'secret')
    return (
      <Notice kind={outcome.kind}>
        <span safe>{outcome.message}</span>
      </Notice>
    );
  return (
    <Notice kind="done" secret>
      <p safe>{outcome.message}</p>
      {outcome.note ? <p safe>{outcome.note}</p> : ''}
      <dl class="secret">
        {outcome.shown.map(([label, value]) => (
          <>
            <dt safe>{label}</dt>
            <dd>
              <code safe>{value}</code>
            </dd>
          </>
        ))}
      </dl>
    </Notice>
  );
}
