// A real OpenID Connect provider (oidc-provider) on a private port of this host, for the console's
// sign-in tests. Its development login page takes any login as the account's e-mail address
// (verified), but for ODD_ACCOUNTS; the address goes out by the userinfo endpoint (the provider
// keeps the ID token to `sub`), as many providers do.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/**
 * Logins whose account has the address ops@club.example with something other than a plain
 * `email_verified: true`; any other login is an account whose address is the login, verified.
 */
export const ODD_ACCOUNTS: Record<string, { email: string; email_verified?: unknown }> = {
  'verified-as-text': { email: 'ops@club.example', email_verified: 'true' },
  'unverified-as-text': { email: 'ops@club.example', email_verified: 'false' },
  unverified: { email: 'ops@club.example', email_verified: false },
  'no-verified-claim': { email: 'ops@club.example' },
  // Named in the tests' CONSOLE_OIDC_ALLOWED_SUBS.
  'listed-without-claim': { email: 'ops@club.example' },
};

export interface RunningOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Registers the console's callback; the provider answers nothing before. */
  register(redirectUri: string): void;
  close(): Promise<void>;
}

export async function startOidcProvider(): Promise<RunningOidcProvider> {
  const server: Server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'console';
  const clientSecret = 'provider test secret, long enough for HS256 use';
  return {
    issuer,
    clientId,
    clientSecret,
    register(redirectUri) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: [redirectUri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'client_secret_post',
          },
        ],
        claims: { openid: ['sub'], email: ['email', 'email_verified'] },
        findAccount: (_ctx, sub) => ({
          accountId: sub,
          claims: () => ({ sub, ...(ODD_ACCOUNTS[sub] ?? { email: sub, email_verified: true }) }),
        }),
        cookies: { keys: ['provider test cookie key'] },
      });
      const handle = provider.callback();
      server.on('request', (req, res) => void handle(req, res));
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
