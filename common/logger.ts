import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs. Credentials never reach a log line, whatever a caller passes in. */
export function createLogger(options: {
  level: string;
  name: string;
  /** Where lines go; stdout when absent. Tests pass a sink to read what would be logged. */
  destination?: DestinationStream;
}): Logger {
  const settings: pino.LoggerOptions = {
    name: options.name,
    level: options.level,
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
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
