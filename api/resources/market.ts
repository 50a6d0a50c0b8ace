import { z } from 'zod';
import { defineResource } from '../resource.js';

export const marketProductResource = defineResource(
  'MarketProduct',
  {
    id: z.int(),
    name: z.string(),
    category_id: z.int(),
    category_name: z.string(),
    price: z.number(),
    stock: z.int(),
    is_active: z.boolean(),
  },
  {
    id: 14,
    name: 'Protein Bar',
    category_id: 2,
    category_name: 'Atıştırmalık',
    price: 85,
    stock: 40,
    is_active: true,
  },
);

export const marketCategoryResource = defineResource(
  'MarketCategory',
  {
    id: z.int(),
    name: z.string(),
    is_active: z.boolean(),
    created_at: z.iso.datetime(),
  },
  {
    id: 2,
    name: 'Atıştırmalık',
    is_active: true,
    created_at: '2024-01-15T08:00:00.000Z',
  },
);
