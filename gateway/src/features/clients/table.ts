import { escapeControls } from '../../cli/terminal-text.js';

/**
 * A plain-text table: a header row, then rows, columns padded to their widest cell. Cells may
 * hold partner text, so their control characters are escaped.
 */
export function formatTable(header: string[], cells: string[][]): string {
  const rows = cells.map((row) => row.map(escapeControls));
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
