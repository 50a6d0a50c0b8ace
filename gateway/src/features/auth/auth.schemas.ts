import { z } from 'zod';
import { DATA_CLASSES } from '#api/data-classes.js';

export const tokenRequestSchema = z
  .object({
    client_key: z.string().min(1).max(200),
    client_secret: z.string().min(1).max(500),
  })
  .meta({
    id: 'TokenRequest',
    examples: [{ client_key: 'ck_5b1e9a0c7d2f', client_secret: 'cs_9d4f0e6a1b8c3f7e2a5d' }],
  });

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
    data_classes: z.array(z.enum(DATA_CLASSES)).meta({
      description:
        "Not in the specification: the classes of members' personal data the client receives " +
        '(`x-data-class` on each field); a field of another class is absent from every answer.',
    }),
  })
  .meta({
    id: 'TokenData',
    examples: [
      {
        access_token: 'eyJhbGciOiJIUzI1NiJ9.ornek.imza',
        refresh_token: 'rt_3f9c2a7d5e1b4c8a',
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_expires_in: 2592000,
        scopes: ['members:list', 'members:read'],
        branch_id: null,
        data_classes: ['basic', 'contact'],
      },
    ],
  });
