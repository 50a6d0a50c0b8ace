// What the OAuth model's parts share (oauth-model.ts): their dependencies, and the library's
// client and user as this model fills them.
import type OAuth2Server from '@node-oauth/oauth2-server';
import type { ReadModelClient } from '#common/databases.js';
import type { Logger } from '#common/logger.js';
import type { ClientSecrets } from '../../trust/client-secrets.js';
import type { ClientEpochs } from '../../trust/client-epochs.js';
import type { EarlierTokens } from '../../trust/earlier-tokens.js';
import type { TokenChecks } from '../../trust/token-checks.js';
import type { ApiClientRecord } from '../clients/clients.repository.js';
import type { IssueLimit } from './issue-limit.js';

export interface OAuthClient extends OAuth2Server.Client {
  record: ApiClientRecord;
  /** The secret_version of the secret the client authenticated with (decision 0003). */
  secretVersion: number;
}

/** The "user" of a client-credentials token is the client itself, plus the token chain. */
export interface OAuthUser extends OAuth2Server.User {
  clientId: number;
  chainId: string;
  /** Whether the pair begins its chain (a token request) rather than following it (a refresh). */
  beginsChain: boolean;
  chainStartedAt: Date | null;
  /** The client's token generation when the chain began (token_generation). */
  generation: number;
  /** The secret_version of the secret that began the chain. */
  secretVersion: number;
}

export interface ModelDeps {
  db: ReadModelClient;
  epochs: ClientEpochs;
  logger: Logger;
  issueLimit: IssueLimit;
  secrets: ClientSecrets;
  checks: TokenChecks;
  earlier: EarlierTokens;
  /** REFRESH_CHAIN_MAX_DAYS in ms. */
  chainMaxMs: number;
}

const GRANTS = ['client_credentials', 'refresh_token'];

export function toOAuthClient(
  record: ApiClientRecord,
  secretVersion = record.secret_version,
): OAuthClient {
  return { id: String(record.id), grants: GRANTS, record, secretVersion };
}
