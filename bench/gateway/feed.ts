// The change feed against paging: one partner reading every member once, from the bench process,
// one request after another as a partner's sync would: GET /changes?types=members&limit=1000
// from no cursor to has_more: false, beside GET /members?limit=200&page=N through the same
// members, in the same run. Reports each walk's time, their ratio, and the p99 of a feed page
// against the p99 of GET /members/{id} measured by the rounds before it.
import type { Started } from './processes.js';

interface Walk {
  ms: number;
  pages: number;
  rows: number;
  pageMs: number[];
}

async function getJson(url: string, token: string) {
  const started = performance.now();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return { body, ms: performance.now() - started };
}

async function followFeed(gateway: Started, token: string): Promise<Walk> {
  const walk: Walk = { ms: 0, pages: 0, rows: 0, pageMs: [] };
  const started = performance.now();
  let cursor = '';
  for (;;) {
    const query = `types=members&limit=1000${cursor ? `&cursor=${cursor}` : ''}`;
    const { body, ms } = await getJson(`${gateway.url}/api/v1/changes?${query}`, token);
    walk.pages += 1;
    walk.rows += (body.data as unknown[]).length;
    walk.pageMs.push(ms);
    cursor = body.next_cursor as string;
    if (!body.has_more) break;
  }
  walk.ms = performance.now() - started;
  return walk;
}

async function pageMembers(gateway: Started, token: string): Promise<Walk> {
  const walk: Walk = { ms: 0, pages: 0, rows: 0, pageMs: [] };
  const started = performance.now();
  for (let page = 1; ; page++) {
    const { body, ms } = await getJson(
      `${gateway.url}/api/v1/members?limit=200&page=${page}`,
      token,
    );
    walk.pages += 1;
    walk.rows += (body.data as unknown[]).length;
    walk.pageMs.push(ms);
    if (page >= (body.pagination as { total_pages: number }).total_pages) break;
  }
  walk.ms = performance.now() - started;
  return walk;
}

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.99) - 1] ?? 0;
const fmt = (n: number, digits = 0) => n.toFixed(digits);

/** `detailP99Ms`: GET /members/{id} through the gateway in the same run (median of the rounds). */
export async function benchFeed(gateway: Started, token: string, detailP99Ms: number) {
  // A first walk warms both paths (JIT, caches); the second is measured.
  await followFeed(gateway, token);
  const feed = await followFeed(gateway, token);
  const paging = await pageMembers(gateway, token);
  const line = (name: string, walk: Walk) =>
    `  ${name}: ${walk.rows} members in ${fmt(walk.ms / 1000, 2)} s, ${walk.pages} requests, ` +
    `p99 of a request ${fmt(p99(walk.pageMs), 2)} ms`;
  console.log(`\nchange feed against paging, every member once, one request after another`);
  console.log(line('GET /changes?types=members&limit=1000', feed));
  console.log(line('GET /members?limit=200&page=N', paging));
  console.log(
    `  feed time / paging time ${fmt(feed.ms / paging.ms, 3)} (target ≤ 0.1); ` +
      `feed page p99 / GET /members/{id} p99 ${fmt(p99(feed.pageMs) / detailP99Ms, 2)} ` +
      `(${fmt(p99(feed.pageMs), 2)} / ${fmt(detailP99Ms, 2)} ms; target ≤ 3)`,
  );
}
