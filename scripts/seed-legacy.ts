// `npm run legacy:seed`: demo data in the legacy database named by LEGACY_DATABASE_URL.
import { loadConfigOrExit } from '#common/config.js';
import { seedLegacyDatabase } from './legacy/seed.js';

console.log(await seedLegacyDatabase(loadConfigOrExit().legacy.url));
