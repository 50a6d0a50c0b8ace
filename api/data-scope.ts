// The caller's branch binding. A bound client sees only its branch (the gateway's scoped-read.ts
// applies it to every query); an unbound one sees all.

export type DataScope =
  { readonly kind: 'all-branches' } | { readonly kind: 'branch'; readonly branchId: number };

export function dataScopeOf(branchId: number | null): DataScope {
  return branchId === null ? { kind: 'all-branches' } : { kind: 'branch', branchId };
}
