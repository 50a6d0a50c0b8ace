// Whether this process sends traces, decided once at its start, before any module that would be
// instrumented is loaded (gateway/src/main.ts, worker/src/main.ts). With
// OTEL_EXPORTER_OTLP_ENDPOINT unset, nothing of OpenTelemetry is loaded: this module is all that
// runs, and its callers pay one undefined check.

/** What the rest of the process uses of tracing, when it is on. */
export interface Tracing {
  /** The trace id of the span active where this is called, if any. */
  traceId(): string | undefined;
  /**
   * The span active here as a W3C `traceparent`, if it is sampled: stored beside what it wrote,
   * so that the work following from it later, elsewhere, can link to it (decision 0017).
   */
  traceParent(): string | undefined;
  /**
   * Runs `work` inside a new span: `client`, a query on a driver no instrumentation covers;
   * `internal`, a unit of the worker's own work (a sync run, a webhook try).
   */
  inSpan<T>(
    name: string,
    kind: 'client' | 'internal',
    attributes: Record<string, string | number>,
    work: () => Promise<T>,
  ): Promise<T>;
  /** Links the span active here to the stored `traceparent`s of the work it follows from. */
  addLinks(traceParents: readonly string[]): void;
  /** Flushes the spans still held and stops the SDK. */
  shutdown(): Promise<void>;
}

let active: Tracing | undefined;

/**
 * Starts tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set. Read here rather than in
 * common/config.ts: this runs before the configuration module, and every module after it, is
 * loaded, so that the instrumentations can patch what those load.
 */
export async function startTracingWhenSet(
  serviceName: 'gateway' | 'worker',
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT) return;
  const { startTracing } = await import('./tracing.js');
  active = startTracing(serviceName, env);
}

/** The process's tracing, or undefined when it is off. */
export function tracing(): Tracing | undefined {
  return active;
}

/** Flushes what is left to send; nothing when tracing is off. Part of each process's drain. */
export async function stopTracing(): Promise<void> {
  await active?.shutdown();
}
