// The one way both processes send a query on the mariadb driver to the legacy database: the
// worker's legacy reader and the gateway's member writes. No OpenTelemetry instrumentation covers
// this driver, so with tracing on each query is a client span of its own, in the trace of the
// request or job that sent it; with tracing off it is the driver's query and nothing more.
import type * as mariadb from 'mariadb';
import { tracing } from './traces.js';

/** A pool or one of its connections. */
type QueryRunner = Pick<mariadb.Pool | mariadb.PoolConnection, 'query'>;

export function legacyQuery<T>(
  runner: QueryRunner,
  query: string | mariadb.QueryOptions,
  values: unknown[],
): Promise<T> {
  const traces = tracing();
  if (!traces) return runner.query<T>(query, values);
  const text = typeof query === 'string' ? query : query.sql;
  // The statement as written, with its `?` placeholders: values never reach a span.
  return traces.inSpan(
    `mysql ${operationOf(text)}`,
    'client',
    { 'db.system.name': 'mysql', 'db.query.text': text },
    () => runner.query<T>(query, values),
  );
}

/** The statement's first keyword (SELECT, INSERT, START...), the span's name as semconv has it. */
function operationOf(text: string): string {
  return /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
}
