// `npm run build`: compiles the processes to dist/ (tsc, tsconfig.build.json) and copies the files
// they read at run time (read-model migrations, the legacy dump) next to them.
// `node scripts/build.mjs --if-stale` (every process script runs it first) builds only when a
// source is newer than the last build, so a fresh clone, an edit or a `git pull` never runs stale
// JavaScript. Where the sources are absent (the Docker image holds dist/, package.json and this
// script alone) it does nothing, whatever the files' times say. Plain JavaScript: it must run
// before anything is compiled.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = path.join(root, 'dist');
const stamp = path.join(dist, '.build-stamp');
const buildConfig = path.join(root, 'tsconfig.build.json');
const SOURCES = [
  'gateway',
  'worker',
  'read-model',
  'api',
  'common',
  'prisma',
  'scripts',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
];
const ASSETS = [
  'prisma/read-model/migrations',
  'prisma/legacy/schema.sql',
  // The pages' stylesheet and chart script (gateway/src/pages/assets.ts).
  'gateway/src/pages/static',
];

/**
 * The newest file's time. Files only: a folder's time moves when any file comes or goes, and the
 * module-boundaries test writes and removes probe files (lint-probe-*, never built) in source
 * folders while other tests run the processes, which would then all rebuild at once.
 */
function newestMtime(entry) {
  if (!existsSync(entry)) return 0;
  const stats = statSync(entry);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = 0;
  for (const child of readdirSync(entry)) {
    if (child === 'node_modules' || child.startsWith('lint-probe-')) continue;
    newest = Math.max(newest, newestMtime(path.join(entry, child)));
  }
  return newest;
}

function isStale() {
  // No sources, nothing to compile: decided before any time is compared, because times cannot
  // tell. The image's `COPY scripts/build.mjs scripts/` creates scripts/ with the time of the
  // copy, later than the stamp its build stage wrote, and a compile there could only fail.
  if (!existsSync(buildConfig)) return false;
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  return SOURCES.some((source) => newestMtime(path.join(root, source)) > built);
}

if (!process.argv.includes('--if-stale') || isStale()) {
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', buildConfig], { stdio: 'inherit' });
  for (const asset of ASSETS) {
    cpSync(path.join(root, asset), path.join(dist, asset), { recursive: true });
  }
  // Imports by name (`#common/config.js`) resolve through the nearest package.json. dist/ mirrors
  // the source tree, so the same map, written beside the compiled files, points at them.
  const { type, imports } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  writeFileSync(path.join(dist, 'package.json'), `${JSON.stringify({ type, imports }, null, 2)}\n`);
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}
