// Usage as CSV, for `npm run usage -- --csv` and the portal's download (GET /usage's rows, one
// line each): RFC 4180 cells, control characters escaped.
import { escapeControls } from '../../cli/terminal-text.js';
import type { UsageFigures } from './usage.read.js';

export const CSV_FIGURES = [
  'requests',
  'client_errors',
  'server_errors',
  'rate_limited',
  'bytes_out',
  'p50_ms',
  'p95_ms',
  'p99_ms',
];

/** RFC 4180: a cell with a comma, quote or line break is quoted, its quotes doubled. */
const csvCell = (text: string) => {
  const safe = escapeControls(text);
  return /[",]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

export const csvText = (lines: string[][]) =>
  lines.map((line) => line.map(csvCell).join(',')).join('\n');

export const csvFigures = (figures: UsageFigures) => [
  String(figures.requests),
  String(figures.client_errors),
  String(figures.server_errors),
  String(figures.rate_limited),
  String(figures.bytes_out),
  ...[figures.latency_ms.p50, figures.latency_ms.p95, figures.latency_ms.p99].map((n) =>
    n === null ? '' : String(n),
  ),
];
