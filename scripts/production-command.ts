// How production starts a process: the node arguments of `npm run gateway` or `npm run worker`
// (heap bounds, compiled entry point), read from package.json so that nothing states them twice.
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The node arguments after `npm run NAME`'s build check, as the checkout in `cwd` says. */
export function productionCommand(name: 'gateway' | 'worker', cwd = '.'): string[] {
  const { scripts } = JSON.parse(readFileSync(path.join(cwd, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  return scripts[name]!.split('&& node ')[1]!.split(' ');
}
