// Bodies of POST /members and PUT /members/{id}: the dashboard's validation (legacy README,
// "Members"). Strict objects: an unknown or read-only field is 400, never silently dropped.
import { z } from 'zod';
import { istanbulDay } from '#common/legacy-time.js';
import { isRealDate, isValidTcNo, normalizePhone } from './member-rules.js';

const fullName = z.string().trim().min(1).max(100);
const surname = z.string().trim().min(1).max(100);
const phone = z
  .string()
  .transform((value, ctx) => {
    const stored = normalizePhone(value);
    if (stored === null) {
      ctx.addIssue({
        code: 'custom',
        message: 'Telefon +90 5XX XXX XX XX, 5XXXXXXXXX veya 05XXXXXXXXX biçiminde olmalı.',
      });
      return z.NEVER;
    }
    return stored;
  })
  // The document shows a string either way (components are rendered from the output side).
  .pipe(z.string())
  .meta({ description: 'Stored and answered as 05XXXXXXXXX.', example: '+90 532 123 45 67' });
const email = z.email().max(150);
const tcNo = z
  .string()
  .refine(isValidTcNo, { message: 'Geçerli bir T.C. kimlik numarası değil.' })
  .meta({ description: '11 digits with valid check digits.' });
const gender = z.enum(['Erkek', 'Kadın']);
const birthDate = z
  .string()
  .refine(isRealDate, { message: 'Geçerli bir tarih değil (YYYY-MM-DD).' })
  .refine((day) => day <= istanbulDay(new Date()), { message: 'Doğum tarihi gelecekte olamaz.' })
  .meta({ format: 'date' });
const address = z.string().trim().min(1).max(1000);
const branchId = z.int().positive().max(4_294_967_295);

export const createMemberBody = z
  .strictObject({
    full_name: fullName,
    phone,
    branch_id: branchId,
    surname: surname.optional(),
    email: email.optional(),
    tc_no: tcNo.optional(),
    gender: gender.optional(),
    birth_date: birthDate.optional(),
    address: address.optional(),
  })
  .meta({ id: 'CreateMemberRequest' });
export type CreateMemberBody = z.infer<typeof createMemberBody>;

/** `null` clears an optional field; `branch_id` and the generated fields are read-only. */
export const updateMemberBody = z
  .strictObject({
    full_name: fullName.optional(),
    phone: phone.optional(),
    surname: surname.nullable().optional(),
    email: email.nullable().optional(),
    tc_no: tcNo.nullable().optional(),
    gender: gender.nullable().optional(),
    birth_date: birthDate.nullable().optional(),
    address: address.nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'En az bir alan gönderilmeli.' })
  .meta({ id: 'UpdateMemberRequest' });
export type UpdateMemberBody = z.infer<typeof updateMemberBody>;
