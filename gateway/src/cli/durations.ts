// Durations as the operator CLIs take them (`--ttl 15m`, `--overlap 24h`): a whole number of
// seconds, minutes or hours.
import { CliError } from './operator-cli.js';

const UNITS = { s: 1000, m: 60_000, h: 3_600_000 } as const;

/** `value` in ms; a CliError naming `option` when it is not a duration in (0, maxMs]. */
export function parseDuration(value: string, option: string, maxMs: number): number {
  const match = /^(\d+)([smh])$/.exec(value);
  const ms = match ? Number(match[1]) * UNITS[match[2] as keyof typeof UNITS] : 0;
  if (ms <= 0 || ms > maxMs) {
    throw new CliError(
      `${option} must be a duration such as 90s, 15m or 2h (at most ${maxMs / 3_600_000}h), got "${value}"`,
    );
  }
  return ms;
}
