import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createClientSecrets } from './client-secrets.js';
import { createTokenChecks } from './token-checks.js';

const key = (n: number) => Buffer.alloc(32, n).toString('base64');

describe('token checks', () => {
  it('when a refresh token is made, then its check passes under every listed key and names its chain', () => {
    const chainId = randomUUID();
    const token = createTokenChecks([key(1)]).refreshToken(chainId);
    expect(token).toHaveLength(71);
    expect(createTokenChecks([key(2), key(1)]).refreshForm(token)).toEqual({
      form: 'keyed',
      chainId,
    });
    expect(createTokenChecks([key(2)]).refreshForm(token)).toBeNull();
  });

  it('when an access token is altered, then it is not one of ours', () => {
    const checks = createTokenChecks([key(1)]);
    const token = checks.accessToken();
    expect(checks.accessForm(token)).toEqual({ form: 'keyed', chainId: null });
    const altered = `${token.slice(0, 10)}${token[10] === 'A' ? 'B' : 'A'}${token.slice(11)}`;
    expect(checks.accessForm(altered)).toBeNull();
  });

  it('when a token of the earlier form is made, then it is taken as that form for either use, under any key', () => {
    const token = createTokenChecks([key(1)]).earlierToken();
    expect(token).toHaveLength(49);
    const other = createTokenChecks([key(2)]);
    expect(other.accessForm(token)).toEqual({ form: 'earlier' });
    expect(other.refreshForm(token)).toEqual({ form: 'earlier' });
  });
});

describe('client secrets', () => {
  it('when SECRETS_KEY is rotated, then a secret under the old key is valid and restored under the new one', async () => {
    const stored = createClientSecrets([key(1)]).hash('secret');
    const rotated = createClientSecrets([key(2), key(1)]);
    const check = await rotated.verify('secret', stored);
    expect(check.valid).toBe(true);
    expect(check.restore).toBe(rotated.hash('secret'));
    expect(await rotated.verify('secret', check.restore)).toMatchObject({
      valid: true,
      restore: null,
    });
    expect(await createClientSecrets([key(2)]).verify('secret', stored)).toMatchObject({
      valid: false,
      keyMissing: true,
    });
  });

  it('when the client is unknown or the secret wrong, then it is not valid', async () => {
    const secrets = createClientSecrets([key(1)]);
    expect((await secrets.verify('secret', null)).valid).toBe(false);
    expect((await secrets.verify('other', secrets.hash('secret'))).valid).toBe(false);
  });
});
