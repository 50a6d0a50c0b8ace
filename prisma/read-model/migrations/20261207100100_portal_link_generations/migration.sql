-- A portal link ends when its client's tokens end, or when the operator ends every outstanding
-- one (`npm run clients -- portal-link KEY --revoke-all`, docs/decisions/0020-portal.md): a link
-- opens only under the client's portal_link_generation it was made in.
-- AlterTable
ALTER TABLE "api_clients" ADD COLUMN     "portal_link_generation" INTEGER NOT NULL DEFAULT 0;
