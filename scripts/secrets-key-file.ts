// docker-compose.yml's one-shot `secrets-key` service: `node dist/scripts/secrets-key-file.js FILE`
// writes a random SECRETS_KEY (32 bytes, base64) to FILE unless it is there already, so the key
// made at the first `docker compose up` is kept by every later one. Every product service reads
// it through SECRETS_KEY_FILE (docs/operations/configure.md, "SECRETS_KEY").
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';

const [file] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node dist/scripts/secrets-key-file.js FILE\n');
  process.exit(2);
}
try {
  // `wx`: never over an existing key, which would leave everything stored under it unreadable.
  // Readable by the services' own user; only the containers that mount the volume see it.
  writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o444 });
  console.log(`a new SECRETS_KEY is in ${file}`);
} catch (error) {
  if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  console.log(`SECRETS_KEY kept: ${file} exists`);
}
