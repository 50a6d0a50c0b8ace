// What a page shows above its content after one of its forms: what was done, a secret shown this
// once, what a test event came to, or a refusal. Every refusal a page can meet becomes its notice
// here, in one way: the operator services' OperatorRefusal (cli/operator-refusal.ts), the API's
// AppError the partner's services throw (its status and details), and a form's or address's zod
// validation failure. An operator refusal is worded in the page's language from its reason (the
// CLI prints the service's own message); the API's AppErrors are Turkish, as the API speaks, and
// shown as they are (docs/decisions/0025-page-languages.md).
import { ZodError } from 'zod';
import { OperatorRefusal, type RefusalReason } from '../cli/operator-refusal.js';
import { AppError } from '../http/errors.js';
import { zodDetails } from '../http/validation.js';
import type { PageLanguage } from './language.js';
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

type Words = Pick<PageLanguage, 't' | 'format'>;

/** An operator refusal's reason in the page's words. */
function reasonWords(reason: RefusalReason, { t, format }: Words): string {
  if (reason.key === 'already-erased')
    return t.refusals['already-erased'](reason, format.moment(reason.at));
  // Each reason's words take that reason (messages/en.ts): the key picks both.
  const words = t.refusals[reason.key] as (reason: RefusalReason) => string;
  return words(reason);
}

/** An operator refusal as a page says it: its reason's words, or the service's own message. */
function operatorWords(error: OperatorRefusal, language: Words): string {
  const { reason, saved } = error.options;
  if (!reason) return error.message;
  const { changes } = language.t.clientEdit;
  const before = saved?.length
    ? ` ${language.t.refusals.saved(saved.map((name) => changes[name] ?? name).join(', '))}`
    : '';
  return `${reasonWords(reason, language)}${before}`;
}

/** The refusal `error` is, or null for an error no page answers (a fault: the area's 500). */
export function refusalOf(error: unknown, language: Words): Refusal | null {
  if (error instanceof OperatorRefusal) return refused(operatorWords(error, language), 400);
  if (error instanceof AppError)
    return refused(detailed(error.message, error.details ?? []), error.status);
  if (error instanceof ZodError)
    return refused(detailed(language.t.outcome.invalidForm, zodDetails(error)), 400);
  return null;
}

function TestNotice(props: { result: TestResult; language: Words }) {
  const { result } = props;
  const { t, format } = props.language;
  const status = result.status_code === null ? t.outcome.noStatus : String(result.status_code);
  return (
    <Notice kind={result.outcome === 'delivered' ? 'done' : 'error'}>
      <p id="test-outcome" safe>
        {t.outcome.test(result.outcome, status, format.number(result.duration_ms))}
      </p>
      <p safe>{t.outcome.answer}</p>
      <pre>
        <code id="test-response" safe>
          {result.response ?? ''}
        </code>
      </pre>
    </Notice>
  );
}

export function OutcomeNotice(props: { outcome: Outcome | undefined; language: Words }) {
  const { outcome } = props;
  if (!outcome) return '';
  if (outcome.kind === 'test')
    return <TestNotice result={outcome.result} language={props.language} />;
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
