import { describe, expect, it } from 'vitest';
import { mayReceive, receivesWebhooks } from './rights.js';

const client = (changes: Partial<Parameters<typeof mayReceive>[0]> = {}) => ({
  is_active: true,
  scopes: ['members:read', 'notifications:read', 'packages:read', 'webhooks:manage'],
  branch_id: null,
  ...changes,
});
const event = (event_type: string, row_branch_id: number | null = 1) => ({
  event_type,
  row_branch_id,
});

describe('the rights of a webhook event', () => {
  it('when the client is active and holds webhooks:manage, then it receives webhooks', () => {
    expect(receivesWebhooks(client())).toBe(true);
    expect(receivesWebhooks(client({ is_active: false }))).toBe(false);
    expect(receivesWebhooks(client({ scopes: ['members:read'] }))).toBe(false);
  });

  it("when the client lacks the read scope of the event's type, then it may not receive it", () => {
    expect(mayReceive(client(), event('members.upsert'))).toBe(true);
    expect(mayReceive(client(), event('member_packages.delete'))).toBe(true);
    expect(mayReceive(client(), event('staff.upsert'))).toBe(false);
    expect(mayReceive(client(), event('constructor.upsert'))).toBe(false);
  });

  it("when the client is bound, then the event's row must be in its branch, as the branch rule says", () => {
    const bound = client({ branch_id: 2 });
    expect(mayReceive(bound, event('members.upsert', 2))).toBe(true);
    expect(mayReceive(bound, event('members.delete', 1))).toBe(false);
    expect(mayReceive(bound, event('members.upsert', null))).toBe(false);
    // Notifications of no branch are every branch's; packages belong to none.
    expect(mayReceive(bound, event('notifications.upsert', null))).toBe(true);
    expect(mayReceive(bound, event('notifications.upsert', 1))).toBe(false);
    expect(mayReceive(bound, event('packages.upsert', null))).toBe(true);
  });
});
