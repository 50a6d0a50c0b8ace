// What the process uses of tracing, apart from both its switch (traces.ts) and the SDK behind it
// (tracing.ts), so that neither imports the other for it.

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
