// A member's version, the strong ETag of GET /members/{id} and of write answers: a hash of the
// member's content, so two updates within one second (DATETIME precision) still change it.
// branch_name is left out: it is the branch's, and a rename does not change the member.
import { hash } from 'node:crypto';
import { memberResource } from '#api/resources/members.js';
import type { ReadModelRow } from '#read-model/table-definition.js';
import type { Member } from './members.schemas.js';

// Every API field but branch_name, in the resource's own order (fields are written once there).
const VERSIONED_FIELDS = Object.keys(memberResource.select).filter(
  (field) => field !== 'branch_name',
);

export function memberETag(member: Member): string {
  const content = JSON.stringify(VERSIONED_FIELDS.map((field) => member[field]));
  return `"${hash('sha256', content, 'base64url').slice(0, 27)}"`;
}

/** A members row as the sync maps it (members.table.ts) -> the API's Member. */
export function mappedToMember(row: ReadModelRow): Member {
  // The mapping keeps DECIMAL as an exact string for PostgreSQL; the API shows a number.
  return memberResource.toApi({ ...row, balance: Number(row.balance) } as never);
}

/** If-Match: `*` or a list of strong ETags; weak ones never match (RFC 9110 13.1.1). */
export function ifMatchAccepts(header: string, current: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim() === current);
}
