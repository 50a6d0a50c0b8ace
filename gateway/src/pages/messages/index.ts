// The catalogue of each language the pages speak (docs/decisions/0025-page-languages.md).
import type { Locale } from '../locale.js';
import { en, type Messages } from './en.js';
import { tr } from './tr.js';

export type { Messages } from './en.js';

const CATALOGUES: Record<Locale, Messages> = { en, tr };

export const catalogueOf = (locale: Locale): Messages => CATALOGUES[locale];
