// The worker's entry point. Tracing, when configured, starts first: the instrumentations patch only
// what is loaded after them, and every static import of a module is loaded before its first line
// runs, so the worker itself (run.ts) is imported only once tracing is on.
import { startTracingWhenSet } from '#common/traces.js';

await startTracingWhenSet('worker');
await import('./run.js');
