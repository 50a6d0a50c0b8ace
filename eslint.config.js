import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * The shared folders are imported by name (`#common/config.js`, package.json "imports"), never by
 * a path that climbs out of the importing folder: one way to write each import, and no
 * `../../../../`.
 */
const byName = {
  regex: '^(\\.\\./)+(common|api|read-model|prisma)/',
  message: 'Import the shared folders by name: #common/…, #api/…, #read-model/…, #prisma/….',
};

/**
 * Imports a part of the code may not make: the processes meet only in read-model/, api/ and
 * common/.
 */
const boundary = (forbidden, message) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: [...forbidden.map((folder) => ({ group: [`**/${folder}/**`], message })), byName],
    },
  ],
});

export default tseslint.config(
  { ignores: ['node_modules/', 'prisma/generated/', 'dist/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // No import circle anywhere: each module can be read, and changed, before the ones it uses.
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver()],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: { 'no-restricted-imports': ['error', { patterns: [byName] }] },
  },
  {
    // Gateway and worker are scaled apart and share only read-model/, api/ and common/.
    files: ['gateway/**/*.{ts,tsx}'],
    rules: boundary(
      ['worker'],
      'The gateway never imports the worker: shared code lives in read-model/, api/ or common/.',
    ),
  },
  {
    // Trust (tokens, secrets, epochs) stands below the HTTP layer and every feature.
    files: ['gateway/src/trust/**/*.ts'],
    rules: boundary(
      ['worker', 'features', 'http', 'pages'],
      'gateway/src/trust/ imports only api/ and common/: the HTTP layer and the features stand on it.',
    ),
  },
  {
    files: ['gateway/src/http/**/*.ts'],
    rules: boundary(
      ['worker', 'features', 'pages'],
      'The HTTP layer imports no feature: what it needs of tokens and secrets is in gateway/src/trust/.',
    ),
  },
  {
    // The console's and portal's shared page pieces state the shapes they render; the features
    // fill them.
    files: ['gateway/src/pages/**/*.{ts,tsx}'],
    rules: boundary(
      ['worker', 'features'],
      'gateway/src/pages/ imports no feature: a page piece states the shape it shows, the features fill it.',
    ),
  },
  {
    // The operator CLIs' one way to run, and the refusal the operator services throw.
    files: ['gateway/src/cli/**/*.ts'],
    rules: boundary(
      ['worker', 'features'],
      'gateway/src/cli/ imports no feature: the features load their commands through it.',
    ),
  },
  {
    files: ['worker/**/*.ts'],
    rules: boundary(
      ['gateway'],
      'The worker never imports the gateway: shared code lives in read-model/, api/ or common/.',
    ),
  },
  {
    // What partners see (resource shapes, the change feed's core), shared by both processes.
    files: ['api/**/*.ts'],
    rules: boundary(
      ['gateway', 'worker'],
      'api/ stands below both processes and imports neither: only api/, read-model/ and common/.',
    ),
  },
  {
    files: ['read-model/**/*.ts', 'common/**/*.ts'],
    rules: boundary(
      ['gateway', 'worker'],
      'Shared modules stand below both processes and import neither.',
    ),
  },
  {
    // The branch rule by construction: read features get the read model only through the
    // ScopedRead of their endpoint context (gateway/src/http/scoped-read.ts), never the client.
    files: ['gateway/src/features/**/*.{ts,tsx}'],
    ignores: [
      'gateway/src/features/auth/**',
      'gateway/src/features/clients/**',
      'gateway/src/features/health/**',
      // A member's erasure: every copy of one member, wherever the gateway keeps one.
      'gateway/src/features/members/erasure.service.ts',
      // Member writes: the dashboard's database, through the gateway's own MySQL user.
      'gateway/src/features/members/legacy-connection.ts',
      // The audit trail of member writes: its own table, written, never read by an endpoint.
      'gateway/src/features/members/members.audit.ts',
      // The operator's pages and audit: every client's data, as the operator CLIs see it.
      'gateway/src/features/console/**',
      'gateway/src/features/operators/**',
      'gateway/src/features/webhooks/webhooks.operator.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^#(common/databases\\.js$|prisma/generated/)',
              allowTypeImports: true,
              message:
                'Feature code reads through ctx.read(), which applies the branch rule; it never holds a database client.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests read JSON bodies of any shape; asserting on them is the point.
    files: ['test/**/*.ts', '**/*.unit.test.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  {
    files: ['eslint.config.js', 'scripts/*.mjs', 'test/support/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The pages' own script, run by the browser as it is (gateway/src/pages/assets.ts).
    files: ['gateway/src/pages/static/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'script',
      globals: { document: 'readonly', uPlot: 'readonly' },
    },
  },
);
