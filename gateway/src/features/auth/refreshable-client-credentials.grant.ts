// The specification gives client-credential clients a refresh token, which RFC 6749 §4.4.3
// advises against. This grant replaces the library's client_credentials grant on
// /api/v1/auth/token only; POST /oauth/token keeps the standard one.
import OAuth2Server from '@node-oauth/oauth2-server';

export class RefreshableClientCredentialsGrant extends OAuth2Server.AbstractGrantType {
  async handle(request: OAuth2Server.Request, client: OAuth2Server.Client) {
    // The library's typings omit the model the base class keeps.
    const { model } = this as unknown as {
      model: OAuth2Server.ClientCredentialsModel & OAuth2Server.RefreshTokenModel;
    };
    const user = await model.getUserFromClient(client);
    if (!user)
      throw new OAuth2Server.InvalidGrantError('Invalid grant: user credentials are invalid');
    // validateScope throws invalid_scope instead of returning a falsy value.
    const scope = (await this.validateScope(user, client, this.getScope(request))) as string[];
    const token = {
      accessToken: await this.generateAccessToken(client, user, scope),
      accessTokenExpiresAt: this.getAccessTokenExpiresAt(),
      refreshToken: await this.generateRefreshToken(client, user, scope),
      refreshTokenExpiresAt: this.getRefreshTokenExpiresAt(),
      scope,
    };
    return model.saveToken(token as OAuth2Server.Token, client, user);
  }
}
