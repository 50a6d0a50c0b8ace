// The gateway's entry point. Tracing, when configured, starts first: the instrumentations patch only
// what is loaded after them, and every static import of a module is loaded before its first line
// runs, so the gateway itself (run.ts) is imported only once tracing is on.
import { startTracingWhenSet } from '#common/traces.js';

await startTracingWhenSet('gateway');
await import('./run.js');
