// A client secret rotated with an overlap (decision 0003): the replaced secret keeps issuing
// tokens until `previous_secret_until`, and the pairs it issued stay valid until then. A pair
// carries the client's secret_version of the secret that began its chain; it is valid while that
// version is the client's, or the one before it within the overlap. Every check of a pair goes
// through here, so a pair of the old secret ends at the overlap's end on every gateway, its
// cached copies included (their expiry is the earlier of the two), without any process acting.

export interface ClientSecretState {
  secret_version: number;
  previous_secret_until: Date | null;
}

/**
 * When a pair begun under `tokenVersion` ends because its secret was replaced, in ms since the
 * epoch: Infinity for the current secret's pairs, the overlap's end for the previous one's, and 0
 * (already) for any older.
 */
export function secretEndsAt(tokenVersion: number, client: ClientSecretState): number {
  if (tokenVersion === client.secret_version) return Infinity;
  const until = client.previous_secret_until;
  if (tokenVersion === client.secret_version - 1 && until !== null) return until.getTime();
  return 0;
}

/** Whether the previous secret still issues tokens at `now`. */
export function previousSecretLives(client: ClientSecretState, now = Date.now()): boolean {
  return client.previous_secret_until !== null && client.previous_secret_until.getTime() > now;
}
