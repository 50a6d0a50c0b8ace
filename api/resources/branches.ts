import { z } from 'zod';
import { personal } from '../data-classes.js';
import { defineResource } from '../resource.js';

export const branchResource = defineResource(
  'Branch',
  {
    id: z.int(),
    name: z.string(),
    address: z.string().nullable(),
    status: z.string().meta({ description: 'Aktif or Pasif.' }),
    manager_name: personal('staff', z.string().nullable()),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    founded_at: z.iso.date().nullable(),
  },
  {
    id: 3,
    name: 'Kadıköy',
    address: 'Moda Cd. 1, Kadıköy, İstanbul',
    status: 'Aktif',
    manager_name: 'Mehmet Demir',
    phone: '2163456789',
    email: 'kadikoy@example.com',
    founded_at: '2019-06-01',
  },
);
