import { describe, expect, it } from 'vitest';
import { OPERATOR } from './webhooks.rules.js';
import { enabledChange } from './webhooks.enabling.js';
import { movesTarget, patchedFields } from './webhooks.subscribe.js';

describe('movesTarget', () => {
  const current = 'https://partner.example/hooks';

  it('when a patch leaves the URL out, then the subscription stays', () => {
    expect(movesTarget({ types: ['members'] }, current)).toBe(false);
  });

  it('when the new URL spells the same target otherwise, then the subscription stays', () => {
    expect(movesTarget({ url: 'https://PARTNER.example:443/hooks/?v=2' }, current)).toBe(false);
  });

  it('when the new URL names another path, then the subscription moves', () => {
    expect(movesTarget({ url: 'https://partner.example/other' }, current)).toBe(true);
  });
});

describe('patchedFields', () => {
  it('when a patch leaves everything out, then nothing is set', () => {
    expect(patchedFields({}, undefined)).toEqual({});
  });

  it('when a patch clears the description, then null is set and nothing else', () => {
    expect(patchedFields({ description: null }, undefined)).toEqual({ description: null });
  });

  it('when a patch names types, then the checked types are set', () => {
    expect(
      patchedFields({ url: 'https://a.example/h', types: [], description: 'x' }, ['members']),
    ).toEqual({ url: 'https://a.example/h', types: ['members'], description: 'x' });
  });
});

describe('enabledChange', () => {
  const at = new Date('2026-01-02T03:04:05Z');

  const credentials = { generation: 2, secretVersion: 5 };

  it('when a client enables, then a subscription the operator disabled is left out and its credentials are recorded', () => {
    expect(enabledChange(7, 3, { enabled: true, reason: OPERATOR, at, credentials })).toEqual({
      heldByOperator: true,
      where: {
        id: 3,
        client_id: 7,
        OR: [{ disabled_reason: null }, { disabled_reason: { not: 'operator' } }],
      },
      data: {
        enabled: true,
        disabled_reason: null,
        disabled_at: null,
        failing_since: null,
        credentials_generation: 2,
        credentials_secret_version: 5,
        hold_path_only: false,
      },
    });
  });

  it('when the operator enables, then the subscription is enabled whoever disabled it', () => {
    const change = enabledChange(null, 3, { enabled: true, reason: OPERATOR, at, credentials });
    expect(change.heldByOperator).toBe(false);
    expect(change.where).toEqual({ id: 3 });
  });

  it('when a subscription is disabled, then its reason and time are recorded', () => {
    expect(enabledChange(7, 3, { enabled: false, reason: 'gone', at, credentials: null })).toEqual({
      heldByOperator: false,
      where: { id: 3, client_id: 7 },
      data: { enabled: false, disabled_reason: 'gone', disabled_at: at, hold_path_only: false },
    });
  });

  it("when the operator disables with --path-only, then the hold's scope is recorded", () => {
    const change = enabledChange(null, 3, {
      enabled: false,
      reason: OPERATOR,
      at,
      credentials: null,
      pathOnly: true,
    });
    expect(change.data).toMatchObject({ disabled_reason: 'operator', hold_path_only: true });
  });
});
