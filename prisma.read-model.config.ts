// Prisma CLI config for the API's PostgreSQL read model. `npm run db:migrate` applies the same
// migrations folder without the CLI (docs/decisions/0001-migrations-without-schema-engine.md).
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/read-model/schema.prisma',
  migrations: { path: 'prisma/read-model/migrations' },
  datasource: {
    url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/dashboard_api',
  },
});
