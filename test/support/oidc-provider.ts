// A real OpenID Connect provider (oidc-provider) on a private port of this host, for the console's
// sign-in tests. Its development login page takes any login as the account's e-mail address; the
// address goes out by the userinfo endpoint (the provider keeps the ID token to `sub`), as many
// providers do.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

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
          claims: () => ({ sub, email: sub, email_verified: true }),
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
