// What bench/soak.ts and its load processes (api-load.ts, legacy-writer.ts) tell each other over
// IPC: the options each starts with, and what each reports.

export interface WriterOptions {
  legacyUrl: string;
  databaseUrl: string;
  rate: number;
  /** Live generated members the writer updates (never deletes). */
  memberIds: number[];
  branchIds: number[];
  /** Transactions are numbered 1..count by the generator. */
  transactionCount: number;
  /** The highest generated member id: members above it were added during the run. */
  generatedMemberMax: number;
  /** How long the last markers may take to show once the writing stops. */
  settleMs: number;
}

export type WriterMessage =
  | {
      kind: 'lags';
      /** Commit → visible of each marker seen since the last report; `polled`: not reconciled. */
      lags: { at: number; ms: number; polled: boolean }[];
      changes: number;
      failures: number;
    }
  | { kind: 'stopped'; changes: number; failures: number; unseen: number };

export interface Credentials {
  key: string;
  secret: string;
  /** Bound to a branch: reads narrowed to it. */
  bound: boolean;
}

export interface ApiLoadOptions {
  /** The gateways' base URLs; client i talks to gateway i mod n. */
  gateways: string[];
  readers: Credentials[];
  /** Reads per second of each reader. */
  readRate: number;
  writer: Credentials;
  writeRate: number;
  followers: Credentials[];
  /** Generated members live at the start (read and updated), and those of the bound branch. */
  memberIds: number[];
  boundMemberIds: number[];
  staffIds: number[];
  branchIds: number[];
  /** Seconds between two token requests of one client; every other one is a refresh. */
  tokenEverySeconds: number;
}

/** One answer: when it came (epoch ms), its group, its latency (ms), its status (0: no answer). */
export type Sample = [at: number, group: string, ms: number, status: number];

export interface CopyComparison {
  follower: string;
  copied: number;
  listed: number;
  /** In the lists, not in the copy; in the copy, not in the lists; in both but not equal. */
  missing: number;
  extra: number;
  different: number;
  examples: string[];
  /** Cursors answered 410 during the run (the follower started again). */
  expired: number;
}

export type ApiMessage =
  { kind: 'samples'; samples: Sample[] } | { kind: 'compared'; comparisons: CopyComparison[] };

export type ApiCommand = { kind: 'stop-load' } | { kind: 'compare' };
