import { z } from 'zod';

export const tokenRequestSchema = z
  .object({
    client_key: z.string().min(1).max(200),
    client_secret: z.string().min(1).max(500),
  })
  .meta({ id: 'TokenRequest' });

export const refreshRequestSchema = z
  .object({ refresh_token: z.string().min(1).max(500) })
  .meta({ id: 'RefreshRequest' });

export const revokeRequestSchema = z
  .object({ token_type: z.enum(['current', 'all']).default('current') })
  .meta({ id: 'RevokeRequest' });

export const tokenDataSchema = z
  .object({
    access_token: z.string(),
    refresh_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.int(),
    refresh_expires_in: z.int(),
    scopes: z.array(z.string()),
    branch_id: z.int().nullable(),
  })
  .meta({ id: 'TokenData' });
