import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { legacySchemaDiff } from '../../scripts/legacy-schema-diff.js';
import { envTest as it } from '../support/fixtures.js';

// prisma/legacy/schema.prisma is written by hand; the dashboard's dump (prisma/legacy/schema.sql)
// is the truth it must follow, because the dashboard, not this project, owns that database.

const schemaPath = new URL('../../prisma/legacy/schema.prisma', import.meta.url);

describe('prisma/legacy/schema.prisma', () => {
  it('when compared with a database loaded from the dashboard dump, then nothing differs', async ({
    env,
  }) => {
    const diff = await legacySchemaDiff({ legacyUrl: env.legacyUrl });
    expect(diff, `prisma/legacy/schema.prisma disagrees with schema.sql:\n${diff}`).toBe('');
  });

  // Guards the comparison itself: one that read nothing would agree with every schema.
  it('when the schema misstates a column, an index and a foreign key, then the diff names each', async ({
    env,
  }) => {
    const schema = await readFile(schemaPath, 'utf8');
    const misstated = schema
      .replace(/(\n {2}phone +String +)@db\.VarChar\(20\)/, '$1@db.VarChar(30)')
      .replace('@@index([phone], map: "idx_members_phone")', '')
      .replace('map: "fk_staff_role")\n', 'map: "fk_staff_role_id")\n');
    expect(misstated).not.toBe(schema);
    const dir = await mkdtemp(path.join(tmpdir(), 'legacy-schema-'));
    try {
      const misstatedPath = path.join(dir, 'schema.prisma');
      await writeFile(misstatedPath, misstated);
      const diff = await legacySchemaDiff({ legacyUrl: env.legacyUrl, schemaPath: misstatedPath });
      expect(diff.split('\n')).toEqual(
        expect.arrayContaining([
          '- column members.phone varchar(20) NOT NULL',
          '+ column members.phone varchar(30) NOT NULL',
          '- index members.idx_members_phone (phone)',
          '- foreign key staff.fk_staff_role (role_id) REFERENCES roles (id) ON DELETE RESTRICT ON UPDATE RESTRICT',
          '+ foreign key staff.fk_staff_role_id (role_id) REFERENCES roles (id) ON DELETE RESTRICT ON UPDATE RESTRICT',
        ]),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
