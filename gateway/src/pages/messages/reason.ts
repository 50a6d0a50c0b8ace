// The refusal reason of one key (cli/operator-refusal.ts), which the words of that refusal take.
import type { RefusalReason } from '../../cli/operator-refusal.js';

export type Reason<K extends RefusalReason['key']> = Extract<RefusalReason, { key: K }>;
