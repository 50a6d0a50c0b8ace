// Whether this process sends traces, decided once at its start, before any module that would be
// instrumented is loaded (gateway/src/main.ts, worker/src/main.ts). With
// OTEL_EXPORTER_OTLP_ENDPOINT unset, nothing of OpenTelemetry is loaded: this module is all that
// runs, and its callers pay one undefined check.

import type { Tracing } from './tracing-interface.js';

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
