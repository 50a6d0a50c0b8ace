// Graceful stop of a process on SIGTERM or SIGINT (docker stop, Kubernetes, Ctrl-C): the
// process drains (stops accepting, lets work in flight finish, then closes its connections) and
// exits 0. Past the deadline, or on a second signal, it exits 1 at once: an operator who asks
// twice means it, and an orchestrator would kill it at its own deadline anyway.
import type { Logger } from './logger.js';

export function onStopSignals(options: {
  logger: Logger;
  timeoutMs: number;
  /** Stops accepting, waits for work in flight, closes pools. Resolves when all is done. */
  drain: (signal: string) => Promise<void>;
  /** Test seam; process.exit otherwise. */
  exit?: (code: number) => void;
}): void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const { logger } = options;
  let stopping = false;

  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second stop signal: exiting without waiting');
      exit(1);
      return;
    }
    stopping = true;
    logger.info({ signal, timeoutMs: options.timeoutMs }, 'stopping: finishing work in flight');
    const deadline = setTimeout(() => {
      logger.error({ timeoutMs: options.timeoutMs }, 'work in flight not finished in time');
      exit(1);
    }, options.timeoutMs);
    deadline.unref();
    options.drain(signal).then(
      () => {
        clearTimeout(deadline);
        logger.info('stopped');
        exit(0);
      },
      (error: unknown) => {
        clearTimeout(deadline);
        logger.error({ err: error }, 'stop failed');
        exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/**
 * A port the process cannot listen on (taken by another process on this host) ends it at once,
 * with one line naming the port and the variable that sets it, and exit code 1.
 */
export function exitOnUnavailablePort(
  logger: Logger,
  variable: string,
  port: number,
  error: unknown,
): never {
  const reason = error instanceof Error ? error.message : String(error);
  logger.fatal(
    { port, variable },
    `cannot listen on port ${port} (${variable}): ${reason}; set ${variable} to a free port`,
  );
  process.exit(1);
}
