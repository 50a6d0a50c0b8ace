// What a portal page shows above its content after a form: a refusal in the API's own words (the
// services throw the AppError the API answers with), what was done, a secret shown this once, or
// what a test event came to (the endpoint's answer as text, never rendered).
import { AppError } from '../../http/errors.js';
import { Notice } from '../../pages/layout.js';
import type { TestOutcome } from '../webhooks/webhooks.service.js';

export type Outcome =
  | { kind: 'error'; message: string }
  | { kind: 'done'; message: string }
  | { kind: 'secret'; message: string; label: string; secret: string }
  | { kind: 'test'; result: TestOutcome };

function TestResult(props: { result: TestOutcome }) {
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
  if (outcome.kind === 'test') return <TestResult result={outcome.result} />;
  if (outcome.kind !== 'secret')
    return (
      <Notice kind={outcome.kind}>
        <span safe>{outcome.message}</span>
      </Notice>
    );
  return (
    <Notice kind="done" secret>
      <p safe>{`${outcome.message} It is shown only this once: keep it now.`}</p>
      <dl class="secret">
        <dt safe>{outcome.label}</dt>
        <dd>
          <code safe>{outcome.secret}</code>
        </dd>
      </dl>
    </Notice>
  );
}

type Refusal = Extract<Outcome, { kind: 'error' }>;

/** What `run` returned, or its refusal with the API's status; other errors go on. */
export async function refusedOr<T>(run: () => Promise<T>): Promise<[T, 200] | [Refusal, number]> {
  try {
    return [await run(), 200];
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const details = error.details?.map((d) => `${d.field}: ${d.message}`) ?? [];
    return [{ kind: 'error', message: [error.message, ...details].join(' ') }, error.status];
  }
}
