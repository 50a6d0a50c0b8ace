// Captures what a process's logger writes, as the JSON lines an operator's collector would see,
// and checks it for credentials. Pass `capture.logger` to startGateway (or any createX taking a
// logger); every line written is kept in order.
import { Writable } from 'node:stream';
import { expect } from 'vitest';
import { createLogger, type Logger } from '#common/logger.js';

export interface LogCapture {
  logger: Logger;
  /** Every line written so far, raw. */
  text(): string;
  /** Every line written so far, parsed. */
  lines(): Record<string, unknown>[];
  /** Lines whose request_id is `id`. */
  linesOf(requestId: string): Record<string, unknown>[];
  /**
   * Fails when any line holds one of `secrets` (the plain values a test handed out: client
   * secrets, access and refresh tokens) or anything shaped like a credential: a Bearer or Basic
   * header value, a stored secret (scrypt, HMAC or bcrypt form).
   */
  expectNoCredentials(secrets: string[]): void;
}

const CREDENTIAL_SHAPES = [
  /Bearer\s+[A-Za-z0-9._~+/-]{16,}/,
  /Basic\s+[A-Za-z0-9+/=]{16,}/,
  /scrypt\$\d+\$/,
  /hmac-sha256\$[A-Za-z0-9_-]{8}\$/,
  /\$2[aby]\$\d{2}\$/,
];

export function captureLogs(level = 'trace'): LogCapture {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  const text = () => chunks.join('');
  const lines = () =>
    text()
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    logger: createLogger({ level, name: 'captured', destination: sink }),
    text,
    lines,
    linesOf: (requestId) => lines().filter((line) => line.request_id === requestId),
    expectNoCredentials(secrets) {
      const all = text();
      for (const secret of secrets) {
        expect(secret.length).toBeGreaterThan(8);
        expect(all.includes(secret), 'a handed-out secret or token is in the log').toBe(false);
      }
      for (const shape of CREDENTIAL_SHAPES) expect(all).not.toMatch(shape);
    },
  };
}
