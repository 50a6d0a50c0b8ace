-- Turkish-folded search text for GET /api/v1/branches?search=. Existing rows get it when the
-- worker copies branches again: forgetting the table's position makes it start from the first row.
ALTER TABLE "branches" ADD COLUMN     "search_text" TEXT NOT NULL DEFAULT '';
ALTER TABLE "branches" ALTER COLUMN "search_text" DROP DEFAULT;
DELETE FROM "sync_state" WHERE "table_name" = 'branches';
