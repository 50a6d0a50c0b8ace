// Scope names, one per operation group (see the OpenAPI document). Endpoints name the scope they
// need.
export const SCOPES = [
  'members:list',
  'members:read',
  'members:write',
  'branches:read',
  'packages:read',
  'financial:read',
  'dashboard:read',
  'market:read',
  'staff:read',
  'notifications:read',
  'private_lessons:read',
  'presence:read',
  'webhooks:manage',
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** The scopes a client holds now, ignoring names that are no longer scopes. */
export function currentScopes(client: { scopes: readonly string[] }): Scope[] {
  return client.scopes.filter(isScope);
}
