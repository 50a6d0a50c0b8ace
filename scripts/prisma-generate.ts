// Generates both Prisma clients. `prisma generate` does not use the native schema engine, but the
// CLI insists on finding one and downloads it when absent; where no engine is installed, point
// it at a placeholder so generation also works offline.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const prismaCli = fileURLToPath(new URL('../node_modules/prisma/build/index.js', import.meta.url));
const env = { ...process.env };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) {
  const dir = path.join(tmpdir(), 'prisma-generate');
  const placeholder = path.join(dir, 'schema-engine-placeholder');
  if (!existsSync(placeholder)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(placeholder, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
  }
  env.PRISMA_SCHEMA_ENGINE_BINARY = placeholder;
}

for (const config of ['prisma.legacy.config.ts', 'prisma.read-model.config.ts']) {
  execFileSync(process.execPath, [prismaCli, 'generate', '--config', config], {
    stdio: 'inherit',
    env,
  });
}
