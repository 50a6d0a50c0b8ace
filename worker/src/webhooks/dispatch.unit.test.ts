// The dispatch policy alone: which subscriptions share a view, and which a page serves.
import { describe, expect, it } from 'vitest';
import type { Change } from '#api/changes/change-page.js';
import type { ChangeKey } from '#api/changes/change-statement.js';
import { servedBy, viewsOf } from './dispatch.js';

const key = (xid: number, id = 1): ChangeKey => ({
  xid: BigInt(xid),
  kind: 1,
  type: 'members',
  id,
});
const changeAt = (xid: number) => ({ change: { id: xid } as unknown as Change, key: key(xid) });
const follower = (id: number, rights: { branch_id?: number | null; scopes?: string[] } = {}) => ({
  id,
  types: ['members'],
  is_active: true,
  scopes: rights.scopes ?? ['members:read', 'webhooks:manage'],
  branch_id: rights.branch_id ?? null,
});

describe('viewsOf', () => {
  it('when subscriptions read alike, then they share one view; another branch is another', () => {
    const views = viewsOf([follower(1), follower(2), follower(3, { branch_id: 4 })]);
    expect(views.map((v) => [v.view.key, v.ids])).toEqual([
      ['*:members', [1, 2]],
      ['4:members', [3]],
    ]);
  });

  it('when a client may not receive webhooks, then its subscription is in no view', () => {
    expect(viewsOf([follower(1, { scopes: ['members:read'] })])).toEqual([]);
  });
});

describe('servedBy', () => {
  const page = {
    changes: [changeAt(10), changeAt(20), changeAt(30)],
    next: key(30),
    hasMore: true,
  };

  it("when followers stand at different positions, then each takes the page's changes after its own", () => {
    const { served } = servedBy(
      page,
      [{ id: 1 }, { id: 2 }, { id: 3 }],
      [key(5), key(10), key(25)],
    );
    expect(served).toEqual([
      { id: 1, first: 1 },
      { id: 2, first: 2 },
      { id: 3, first: 3 },
    ]);
  });

  it("when a follower stands at or past a full page's end, then it is left for a page of its own", () => {
    const { served, ahead } = servedBy(page, [{ id: 1 }, { id: 2 }], [key(5), key(40)]);
    expect([served.map((s) => s.id), ahead]).toEqual([[1], [2]]);
  });

  it('when the page is short, then a follower past its end waits for nothing', () => {
    const { served, ahead } = servedBy({ ...page, hasMore: false }, [{ id: 2 }], [key(40)]);
    expect([served, ahead]).toEqual([[], []]);
  });
});
