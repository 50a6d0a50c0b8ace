// The processes meet only in read-model/, api/ and common/: ESLint (npm run check) refuses a
// gateway file importing the worker, a worker file importing the gateway, a shared module (api/
// included) importing either, the gateway's HTTP layer, page pieces or CLI runner importing a
// feature, its trust/ importing anything of the gateway above it, and any import circle. Each
// case writes a probe file and lints it with the project's own configuration.
import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { BOUNDS, codeShape, PRODUCT_FOLDERS } from '../../scripts/code-shape.js';

/** Writes each probe, lints them, removes them; returns the rule ids reported, per file. */
async function lintProbes(probes: Record<string, string>): Promise<Map<string, string[]>> {
  const eslint = new ESLint({ overrideConfig: tseslint.configs.disableTypeChecked });
  try {
    for (const [file, text] of Object.entries(probes)) await writeFile(file, text);
    const results = await eslint.lintFiles(Object.keys(probes));
    return new Map(
      results.map((r) => [
        r.filePath.slice(process.cwd().length + 1),
        r.messages.map((m) => String(m.ruleId)),
      ]),
    );
  } finally {
    for (const file of Object.keys(probes)) await rm(file, { force: true });
  }
}

const probeName = (folder: string) => `${folder}/lint-probe-${randomBytes(4).toString('hex')}.ts`;

describe('module boundaries', () => {
  it.each([
    ['gateway/src', "import { syncTable } from '../../../worker/src/sync/sync-engine.js';"],
    ['worker/src', "import { createApp } from '../../../gateway/src/app.js';"],
    ['read-model', "import { syncTable } from '../../worker/src/sync/sync-engine.js';"],
    ['common', "import { createApp } from '../../gateway/src/app.js';"],
    ['api', "import { createApp } from '../../gateway/src/app.js';"],
    ['api/changes', "import { syncTable } from '../../../worker/src/sync/sync-engine.js';"],
    ['gateway/src/http', "import { createOAuthModel } from '../../features/auth/oauth-model.js';"],
    ['gateway/src/trust', "import { AppError } from '../../http/errors.js';"],
    ['gateway/src/pages', "import type { UsageRow } from '../../features/usage/usage.read.js';"],
    ['gateway/src/cli', "import { runCommand } from '../../features/clients/clients.commands.js';"],
  ])(
    'when a file in %s imports across the boundary, then ESLint reports it',
    async (folder, line) => {
      const file = probeName(folder);
      const reported = await lintProbes({ [file]: `${line}\n\nexport const probe = 1;\n` });
      expect(reported.get(file)).toContain('no-restricted-imports');
    },
  );

  it('when a file imports the shared read model, then ESLint has nothing to say', async () => {
    const file = probeName('gateway/src');
    const line = "import { membersTable } from '#read-model/tables/members.table.js';";
    const reported = await lintProbes({
      [file]: `${line}\n\nexport const probe = membersTable;\n`,
    });
    expect(reported.get(file)).toEqual([]);
  });

  it('when a file imports a shared folder by a climbing path, then ESLint asks for its name', async () => {
    const file = probeName('gateway/src');
    const line = "import { membersTable } from '../../../read-model/tables/members.table.js';";
    const reported = await lintProbes({
      [file]: `${line}\n\nexport const probe = membersTable;\n`,
    });
    expect(reported.get(file)).toEqual(['no-restricted-imports']);
  });

  it('when two modules import each other, then ESLint reports the circle', async () => {
    const a = probeName('read-model');
    const b = probeName('read-model');
    const importOf = (file: string) => `./${file.split('/').pop()!.replace(/\.ts$/, '.js')}`;
    const reported = await lintProbes({
      [a]: `import { b } from '${importOf(b)}';\n\nexport const a = () => b;\n`,
      [b]: `import { a } from '${importOf(a)}';\n\nexport const b = () => a;\n`,
    });
    expect(reported.get(a)).toContain('import-x/no-cycle');
  });

  it('the product keeps its shape: no function over 100 lines, at most 2 files over 400, no climbing import, no circle, no import up a layer of gateway/src', () => {
    const shape = codeShape(PRODUCT_FOLDERS);
    expect(shape.files).toBeGreaterThan(200);
    expect(shape.long.filter((f) => f.lines > BOUNDS.longestLines)).toEqual([]);
    expect(shape.long.length).toBeLessThanOrEqual(BOUNDS.longAllowed);
    expect(shape.longFiles.length).toBeLessThanOrEqual(BOUNDS.longFilesAllowed);
    expect(shape.climbing).toEqual([]);
    expect(shape.circles).toEqual([]);
    expect(shape.upward).toEqual([]);
  });
});
