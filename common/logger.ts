import { pino, type DestinationStream, type Logger } from 'pino';
import { errorForLog } from './log-errors.js';

export type { Logger };

/**
 * Structured JSON logs. Credentials never reach a log line, whatever a caller passes in; an error
 * shows its kind and words, never a statement's parameters or the values it quotes
 * (log-errors.ts).
 */
export function createLogger(options: {
  level: string;
  name: string;
  /** Where lines go; stdout when absent. Tests pass a sink to read what would be logged. */
  destination?: DestinationStream;
  /**
   * Stdout written in batches (the gateway: a line per request), since one write per line slows
   * reads (figures: docs/decisions/0005); a line waits at most a second, and the lines still
   * held are written when the process exits.
   */
  batched?: boolean;
}): Logger {
  const settings: pino.LoggerOptions = {
    name: options.name,
    level: options.level,
    serializers: { err: errorForLog, error: errorForLog },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        '*.client_secret',
        '*.access_token',
        '*.refresh_token',
        '*.password',
        '*.password_hash',
        '*.remember_token',
        'client_secret',
        'access_token',
        'refresh_token',
      ],
      censor: '[redacted]',
    },
  };
  if (options.destination) return pino(settings, options.destination);
  if (!options.batched) return pino(settings);
  // Asynchronous sonic-boom: pino writes what it still holds when the process exits (even on an
  // uncaught error); only a SIGKILL loses up to the 4 kB batch.
  return pino(
    settings,
    pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 1000 }),
  );
}
