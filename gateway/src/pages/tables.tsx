// The heads of a page's tables: each column's name, numbers right-aligned (pages.css `num`).

export function Heads(props: {
  names: readonly string[];
  /** The columns of numbers. */
  numeric?: readonly string[];
}) {
  return (
    <thead>
      <tr>
        {props.names.map((name) => (
          <th scope="col" class={props.numeric?.includes(name) ? 'num' : undefined} safe>
            {name}
          </th>
        ))}
      </tr>
    </thead>
  );
}
