import { z } from 'zod';
import { defineResource } from '../resource.js';

export const privateLessonResource = defineResource(
  'PrivateLesson',
  {
    id: z.int(),
    member_id: z.int(),
    member_name: z.string(),
    branch_id: z.int().meta({ description: "The branch of the lesson's member." }),
    package_id: z.int(),
    package_name: z.string(),
    total_lessons: z.int(),
    remaining_lessons: z.int(),
    created_at: z.iso.datetime(),
  },
  {
    id: 58,
    member_id: 1042,
    member_name: 'Ayşe Yılmaz',
    branch_id: 3,
    package_id: 21,
    package_name: '10 Ders Pilates',
    total_lessons: 10,
    remaining_lessons: 6,
    created_at: '2026-02-02T10:00:00.000Z',
  },
);
