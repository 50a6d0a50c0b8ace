// An endpoint cannot be mounted without a scope decision, and feature code cannot reach a client
// that ignores the branch rule: the type and mountEndpoints refuse a declaration without
// `access`, ESLint refuses a feature importing the database module, and the ScopedRead a bound
// handler gets exposes nothing but branch-limited reads.
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Router } from 'express';
import { z } from 'zod';
import { createReadModelClient, type ReadModelClient } from '#common/databases.js';
import { dataScopeOf } from '#api/data-scope.js';
import { defineEndpoint } from '../../gateway/src/endpoint-services.js';
import { mountEndpoints, type MountDeps } from '../../gateway/src/http/endpoint.js';
import { createScopedReads, type ScopedRead } from '../../gateway/src/http/scoped-read.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { syncOnce } from '../support/sync-once.js';

const undecided = {
  operationId: 'listThings',
  group: 'members',
  method: 'GET',
  path: '/things',
  summary: 'Bir şey listeler',
  response: z.object({ success: z.boolean() }),
  tables: [],
  handle: () => Promise.resolve({ success: true }),
} as const;

describe('an endpoint declaration without a scope decision', () => {
  it('when it is written, then it does not type-check', () => {
    // @ts-expect-error -- `access` is required: every endpoint decides who may call it.
    const declared = defineEndpoint(undecided);
    expect(declared.access).toBeUndefined();
  });

  it('when it is mounted anyway, then mountEndpoints throws before any route exists', () => {
    const unused = new Proxy({}, { get: () => expect.unreachable('deps touched') });
    expect(() =>
      mountEndpoints(Router(), [undecided as never], unused as MountDeps<never>),
    ).toThrow(/listThings declares no access/);
  });
});

describe('feature code importing the database module', () => {
  it('when a feature file imports createReadModelClient, then ESLint reports no-restricted-imports', async () => {
    const folder = `gateway/src/features/lint-probe-${randomBytes(4).toString('hex')}`;
    const file = `${folder}/x.read.ts`;
    try {
      await mkdir(folder, { recursive: true });
      await writeFile(
        file,
        "import { createReadModelClient } from '#common/databases.js';\n\n" +
          "export const unscoped = createReadModelClient('postgresql://localhost/x');\n",
      );
      // The project's own configuration decides; type information is left out only because
      // building the whole program takes longer than the rule needs (it reads imports alone).
      const eslint = new ESLint({ overrideConfig: tseslint.configs.disableTypeChecked });
      const [result] = await eslint.lintFiles([file]);
      const rules = result!.messages.map((m) => `${m.severity} ${m.ruleId}`);
      expect(rules).toContain('2 @typescript-eslint/no-restricted-imports');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

let env: TestEnvironment;
let db: ReadModelClient;
let own: number;
let foreign: number;
let foreignMember: number;
let bound: ScopedRead;

beforeAll(async () => {
  env = await createTestEnvironment();
  const dashboard = await LegacyDashboard.connect(env.legacyUrl);
  try {
    own = await dashboard.insertBranch();
    foreign = await dashboard.insertBranch();
    await dashboard.insertMember({ branch_id: own });
    foreignMember = await dashboard.insertMember({ branch_id: foreign });
  } finally {
    await dashboard.close();
  }
  await syncOnce(env);
  db = createReadModelClient(env.databaseUrl, { poolSize: 2 });
  bound = createScopedReads(db)(dataScopeOf(own));
});

afterAll(async () => {
  await db?.$disconnect();
  await env?.destroy();
});

describe('the ScopedRead of a bound client', () => {
  it('when inspected, then it holds the data models only: no client, tokens or sync state', () => {
    for (const name of ['apiClient', 'apiToken', 'syncState', '$queryRaw', '$transaction']) {
      expect(name in bound).toBe(false);
      expect((bound as unknown as Record<string, unknown>)[name]).toBeUndefined();
    }
    expect(Object.isFrozen(bound)).toBe(true);
  });

  it("when a model's delegate is inspected, then it offers reads alone and leads back to no client", () => {
    for (const model of ['member', 'package'] as const) {
      const delegate = bound[model] as unknown as Record<string, unknown>;
      expect(delegate.$parent).toBeUndefined();
      expect(delegate.create).toBeUndefined();
      expect(Object.keys(delegate).sort()).toEqual(
        ['aggregate', 'count', 'findFirst', 'findMany', 'findUnique', 'groupBy'].sort(),
      );
    }
  });

  it.each([
    ['the other branch id', () => ({ branch_id: foreign })],
    ['the other member id', () => ({ id: foreignMember })],
    ['either branch', () => ({ OR: [{ branch_id: foreign }, { branch_id: own }] })],
    ['an AND of its own', () => ({ AND: { branch_id: foreign } })],
  ])(
    'when findMany on member names %s, then no row of the other branch comes back',
    async (_case, where) => {
      const rows = await bound.member.findMany({ where: where(), select: { branch_id: true } });
      expect(rows.filter((r) => r.branch_id !== own)).toEqual([]);
      // The same query unbound does reach the other branch, so the check can fail.
      const unbound = await db.member.findMany({ where: where(), select: { branch_id: true } });
      expect(unbound.map((r) => r.branch_id)).toContain(foreign);
    },
  );

  it('when findUnique asks for the other branch member, then it answers null', async () => {
    expect(await bound.member.findUnique({ where: { id: foreignMember } })).toBeNull();
    expect(await bound.member.count({ where: { branch_id: foreign } })).toBe(0);
  });
});
