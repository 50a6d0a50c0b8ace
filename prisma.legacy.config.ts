// Prisma CLI config for the dashboard's MySQL schema: generate only, never migrate.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/legacy/schema.prisma',
  datasource: { url: process.env.LEGACY_DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/dashboard' },
});
