// The client-credentials grant's side of the OAuth model (oauth-model.ts): who may obtain tokens
// and which scopes, the client a key and secret authenticate (getClient), the chain a token
// request begins (getUserFromClient), and the form of the tokens handed out.
import { randomUUID } from 'node:crypto';
import { insufficientScope } from '../../http/errors.js';
import { currentScopes } from '#api/scopes.js';
import { previousSecretLives } from '../../trust/secret-overlap.js';
import {
  findClientByKey,
  restoreSecretHash,
  type ApiClientRecord,
} from '../clients/clients.repository.js';
import {
  toOAuthClient,
  type ModelDeps,
  type OAuthClient,
  type OAuthUser,
} from './oauth-model-deps.js';

/**
 * A disabled client, or one holding no scope, may not obtain tokens
 * (docs/decisions/0003-tokens.md).
 */
export function assertMayObtainTokens(record: ApiClientRecord): void {
  if (!record.is_active) throw insufficientScope('API istemcisi devre dışı.');
  if (currentScopes(record).length === 0)
    throw insufficientScope('API istemcisinin hiçbir yetkisi yok.');
}

/** The scopes a token gets: all the client holds, or those requested if it holds them all. */
export function grantedScopes(client: OAuthClient, requested?: string[]) {
  const held = currentScopes(client.record);
  if (!requested || requested.length === 0) return Promise.resolve(held);
  const allowed = requested.every((scope) => (held as string[]).includes(scope));
  return Promise.resolve(allowed ? requested : false);
}

/**
 * The secret_version of the client's secret `secret` is: its current one (an older stored form
 * is replaced), or the previous one within its overlap; null when it is neither.
 */
async function versionOfSecret(
  deps: ModelDeps,
  record: ApiClientRecord | null,
  secret: string,
): Promise<number | null> {
  const stored = record?.secret_hash ?? null;
  const check = await deps.secrets.verify(secret, stored);
  if (check.keyMissing) {
    deps.logger.warn(
      { clientId: record?.id },
      "a client's secret is stored under a key SECRETS_KEY no longer holds: put it back",
    );
  }
  if (check.valid && check.restore && record && stored) {
    await restoreSecretHash(deps.db, record.id, stored, check.restore);
  }
  if (check.valid && record) return record.secret_version;
  if (!record?.previous_secret_hash || !previousSecretLives(record)) return null;
  const previous = await deps.secrets.verify(secret, record.previous_secret_hash);
  return previous.valid ? record.secret_version - 1 : null;
}

/**
 * getClient: the client a key names, authenticated by its secret when one is given. A client at
 * its issuance limit is refused (429) whatever it sent. A good secret is counted right after
 * (beginChain), which refuses one past the limit, so a secret checked by an HMAC is checked first
 * and the limit read only when it fails: one Redis call per token request. A refresh, and a
 * secret stored as an earlier scrypt hash, read the limit first: at its limit a client costs no
 * refresh-token lookup and no scrypt.
 */
export async function authenticateClient(
  deps: ModelDeps,
  clientKey: string,
  clientSecret: string | undefined | null,
) {
  const record = await findClientByKey(deps.db, clientKey);
  if (!record) {
    // An unknown key costs what a known one does (versionOfSecret's dummy HMAC).
    if (clientSecret != null) await versionOfSecret(deps, null, clientSecret);
    return false;
  }
  const checkFirst = clientSecret == null || !deps.secrets.isFast(record.secret_hash);
  if (checkFirst) await deps.issueLimit.check(record.id);
  let secretVersion = record.secret_version;
  if (clientSecret != null) {
    const version = await versionOfSecret(deps, record, clientSecret);
    if (version === null) {
      if (!checkFirst) await deps.issueLimit.check(record.id);
      return false;
    }
    secretVersion = version;
  }
  assertMayObtainTokens(record);
  return toOAuthClient(record, secretVersion);
}

/**
 * getUserFromClient: called by both client-credentials grants once the client authenticated,
 * before a pair is made: where a token request is counted (issue-limit.ts).
 */
export async function beginChain(deps: ModelDeps, client: OAuthClient): Promise<OAuthUser> {
  await deps.issueLimit.count(client.record.id);
  return {
    clientId: client.record.id,
    chainId: randomUUID(),
    beginsChain: true,
    chainStartedAt: null,
    generation: client.record.token_generation,
    secretVersion: client.secretVersion,
  };
}

/**
 * A token to hand out: keyed, or of the earlier form while the earlier release may still answer
 * partners beside this one during a rolling upgrade, since it refuses keyed tokens unseen
 * (earlier-tokens.ts).
 */
export async function issuedToken(deps: ModelDeps, keyed: () => string): Promise<string> {
  return (await deps.earlier.earlierReleaseMayRun()) ? deps.checks.earlierToken() : keyed();
}
