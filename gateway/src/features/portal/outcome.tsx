// What a portal page shows above its content after a form: a refusal in the API's own words (the
// services throw the AppError the API answers with), what was done, or a secret shown this once.
import { AppError } from '../../http/errors.js';
import { Notice } from '../../pages/layout.js';

export type Outcome =
  | { kind: 'error'; message: string }
  | { kind: 'done'; message: string }
  | { kind: 'secret'; message: string; label: string; secret: string };

export function OutcomeNotice(props: { outcome: Outcome | undefined }) {
  const { outcome } = props;
  if (!outcome) return '';
  if (outcome.kind !== 'secret')
    return (
      <Notice kind={outcome.kind}>
        <span safe>{outcome.message}</span>
      </Notice>
    );
  return (
    <Notice kind="done">
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
