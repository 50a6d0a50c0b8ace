// What the worker costs the legacy server: CPU seconds of the MySQL/MariaDB server process (read
// from /proc when it runs on this machine; the server is shared, so other users' load counts too)
// and rows the server read (MariaDB's Rows_read, server-wide, same caveat).
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import type { LegacyClient } from '#common/legacy-database.js';

export interface LegacyLoad {
  cpuSeconds: number | null;
  rowsRead: number;
}

function serverCpuSeconds(): number | null {
  try {
    const pid = execFileSync('pgrep', ['-x', 'mariadbd|mysqld']).toString().split('\n')[0];
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime, fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 per second).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

async function rowsRead(legacy: LegacyClient): Promise<number> {
  const rows = await legacy.$queryRaw<{ Value: string }[]>`SHOW GLOBAL STATUS LIKE 'Rows_read'`;
  return Number(rows[0]?.Value ?? 0);
}

export async function legacyLoadSnapshot(legacy: LegacyClient): Promise<LegacyLoad> {
  return { cpuSeconds: serverCpuSeconds(), rowsRead: await rowsRead(legacy) };
}

export function legacyLoadSince(before: LegacyLoad, after: LegacyLoad): LegacyLoad {
  return {
    cpuSeconds:
      before.cpuSeconds === null || after.cpuSeconds === null
        ? null
        : after.cpuSeconds - before.cpuSeconds,
    rowsRead: after.rowsRead - before.rowsRead,
  };
}
