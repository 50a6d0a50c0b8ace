// A partner's copy of a club's data (the change feed, webhooks) against what the list endpoints
// answer: the objects of each type, keyed `type:id`.
import { expect } from 'vitest';
import { bearer, getJson, type RunningGateway } from './gateway.js';
import { LISTS } from './partner-lists.js';

export { LISTS, READ_SCOPES } from './partner-lists.js';

/** What the list endpoints answer, keyed as the copy is. */
export async function listed(
  gateway: RunningGateway,
  token: string,
): Promise<Map<string, unknown>> {
  const all = new Map<string, unknown>();
  for (const [type, path] of Object.entries(LISTS)) {
    for (let page = 1; ; page++) {
      const answer = await getJson(
        `${gateway.url}/api/v1${path}?limit=200&page=${page}`,
        bearer(token),
      );
      expect([path, answer.status]).toEqual([path, 200]);
      for (const item of answer.body.data) all.set(`${type}:${item.id}`, item);
      if (page >= answer.body.pagination.total_pages) break;
    }
  }
  // Member packages are listed per member.
  for (const key of [...all.keys()].filter((k) => k.startsWith('members:'))) {
    const id = key.slice('members:'.length);
    const answer = await getJson(
      `${gateway.url}/api/v1/members/${id}/packages?limit=200`,
      bearer(token),
    );
    for (const item of answer.body.data) all.set(`member_packages:${item.id}`, item);
  }
  return all;
}

const sorted = (copy: Map<string, unknown>) =>
  [...copy.entries()].sort(([a], [b]) => (a < b ? -1 : 1));

/**
 * The copy and the lists side by side. Member packages are listed per member, so those of a
 * member no longer listed (deleted, or moved out of the branch) are compared by what remains.
 */
export async function expectCopyEqualsLists(
  gateway: RunningGateway,
  token: string,
  copy: Map<string, unknown>,
) {
  const lists = await listed(gateway, token);
  const visible = (key: string, value: unknown) =>
    !key.startsWith('member_packages:') ||
    lists.has(`members:${(value as { member_id: number }).member_id}`);
  const shown = new Map([...copy].filter(([key, value]) => visible(key, value)));
  expect(sorted(shown)).toEqual(sorted(lists));
}
