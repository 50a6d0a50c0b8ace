// Preloaded (NODE_OPTIONS=--import) into a process under test: appends the URL of every module
// it imports to the file named by RESOLVED_MODULES_FILE, so a test can tell which packages the
// process loaded. The hook runs on the loader's own thread, hence a synchronous append per line.
import { register } from 'node:module';
import process from 'node:process';

register(
  `data:text/javascript,${encodeURIComponent(`
    import { appendFileSync } from 'node:fs';
    let file;
    export function initialize(data) { file = data.file; }
    export async function resolve(specifier, context, next) {
      const resolved = await next(specifier, context);
      appendFileSync(file, resolved.url + '\\n');
      return resolved;
    }
  `)}`,
  { data: { file: process.env.RESOLVED_MODULES_FILE } },
);
