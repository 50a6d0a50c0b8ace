// The pieces every form of both areas is made of, so that a page states what it asks and not how
// a label, a hint or a form's section is marked up: one markup, checked once by axe, for all.
import type { Children } from '@kitajs/html';
import { PostForm } from './layout.js';

/**
 * A section of a page named by its heading (`aria-labelledby`), holding one form that posts to
 * `action`. `hint`, a sentence under the heading, has the id `${id}-hint`, so that the form's
 * button can point at it (`aria-describedby`); `before` stands between the heading and the form.
 */
export function FormSection(props: {
  id: string;
  heading: string;
  action: string;
  hint?: string | undefined;
  before?: Children;
  children?: Children;
}) {
  const heading = `${props.id}-heading`;
  return (
    <section aria-labelledby={heading}>
      <h2 id={heading} safe>
        {props.heading}
      </h2>
      {props.hint === undefined ? (
        ''
      ) : (
        <p id={`${props.id}-hint`} safe>
          {props.hint}
        </p>
      )}
      {props.before ?? ''}
      <PostForm action={props.action} class="stack">
        {props.children}
      </PostForm>
    </section>
  );
}

/**
 * A labelled input: the label names it (`for`), the input's name is its id unless given, and a
 * hint under it describes it (`aria-describedby`, id `${id}-hint`). Every other attribute is the
 * input's own.
 */
export function Field(
  props: JSX.HtmlInputTag & { id: string; label: string; hint?: string | undefined },
) {
  const { label, hint, ...input } = props;
  const hintId = `${props.id}-hint`;
  return (
    <>
      <label for={props.id} safe>
        {label}
      </label>
      <input
        {...input}
        name={input.name ?? props.id}
        aria-describedby={hint === undefined ? undefined : hintId}
      />
      <Hint id={hintId} text={hint} />
    </>
  );
}

/**
 * A check box (or, given `type`, a radio button) with its words beside it; `children`, words that
 * are not plain text. A hint under it describes it (id `${name}-hint`).
 */
export function Check(
  props: JSX.HtmlInputTag & {
    name: string;
    label?: string | undefined;
    hint?: string | undefined;
    children?: Children;
  },
) {
  const { label, hint, children, ...input } = props;
  const hintId = `${props.name}-hint`;
  return (
    <>
      <label class="check">
        <input
          type="checkbox"
          {...input}
          aria-describedby={hint === undefined ? undefined : hintId}
        />
        {label === undefined ? children : <span safe>{label}</span>}
      </label>
      <Hint id={hintId} text={hint} />
    </>
  );
}

/** A named group of check boxes, laid out side by side. */
export function Checks(props: { legend: string; children?: Children }) {
  return (
    <fieldset>
      <legend safe>{props.legend}</legend>
      <div class="scopes">{props.children}</div>
    </fieldset>
  );
}

/** The sentence under an input that its `aria-describedby` names; nothing without one. */
function Hint(props: { id: string; text: string | undefined }) {
  if (props.text === undefined) return '';
  return (
    <p id={props.id} class="hint" safe>
      {props.text}
    </p>
  );
}
