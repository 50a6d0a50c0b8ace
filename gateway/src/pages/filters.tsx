// The filters above a page's table: a GET form of choices and inputs, whose answer is the same
// page with them in its query (the page's query schema reads them back, pages/page.tsx).
import { escapeHtml, type Children } from '@kitajs/html';

export function Filters(props: { action: string; button: string; children?: Children }) {
  return (
    <form method="get" action={props.action} class="filters">
      {props.children}
      <button type="submit" safe>
        {props.button}
      </button>
    </form>
  );
}

/** A choice of `options`, each a value and its words, with `chosen` selected. */
export function Choice(props: {
  label: string;
  name: string;
  options: readonly (readonly [value: string, words: string])[];
  chosen: string | undefined;
}) {
  return (
    <label>
      {escapeHtml(props.label)}
      <select name={props.name}>
        {props.options.map(([value, words]) => (
          <option value={value} selected={props.chosen === value} safe>
            {words}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A text input of the filters. */
export function Typed(props: { label: string; name: string; value: string | undefined }) {
  return (
    <label>
      {escapeHtml(props.label)}
      <input name={props.name} value={props.value ?? ''} />
    </label>
  );
}
