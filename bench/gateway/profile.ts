// Where a CPU profile's time went, by package: the split quoted in docs/decisions/0005. Reads the
// .cpuprofile that `node --cpu-prof` writes and adds up each function's own samples.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
}

function categoryOf({ functionName, url }: ProfileNode['callFrame']): string {
  if (!url) {
    if (functionName === '(idle)') return '(idle)';
    if (functionName === '(garbage collector)') return 'garbage collector';
    return functionName.startsWith('(') ? `V8 ${functionName}` : 'V8 builtins (no JS caller)';
  }
  if (url.startsWith('node:')) return 'node core';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const [scope, name] = url.slice(modules + '/node_modules/'.length).split('/');
    const pkg = scope?.startsWith('@') ? `${scope}/${name}` : (scope ?? '?');
    return pkg.startsWith('@prisma/') ? `prisma (${pkg})` : pkg;
  }
  if (url.includes('/prisma/generated/')) return 'prisma (generated client)';
  return 'project code';
}

/** Self time by category, as percentages of the busy (non-idle) time. */
export function profileSplit(file: string): { category: string; percent: number }[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parentOf.set(child, node.id);
  // Builtins (JSON, RegExp, Promise machinery) count for the JavaScript that called them.
  const owner = (id: number): ProfileNode => {
    let node = byId.get(id)!;
    const special = /^\((idle|garbage collector|program|root)\)$/.test(node.callFrame.functionName);
    while (!special && !node.callFrame.url && parentOf.has(node.id)) {
      node = byId.get(parentOf.get(node.id)!)!;
    }
    return node;
  };
  const hits = new Map<string, number>();
  for (const id of profile.samples) {
    const category = categoryOf(owner(id).callFrame);
    hits.set(category, (hits.get(category) ?? 0) + 1);
  }
  hits.delete('(idle)');
  const busy = [...hits.values()].reduce((a, b) => a + b, 0);
  return [...hits.entries()]
    .map(([category, n]) => ({ category, percent: (100 * n) / busy }))
    .sort((a, b) => b.percent - a.percent);
}

export function printProfileSplit(directory: string, processName = 'gateway'): void {
  for (const name of readdirSync(directory).filter((f) => f.endsWith('.cpuprofile'))) {
    const file = path.join(directory, name);
    console.log(
      `\nCPU profile of the ${processName} (${name}, removed with the run), self time by package, busy time only:`,
    );
    for (const { category, percent } of profileSplit(file).slice(0, 14)) {
      console.log(`  ${percent.toFixed(1).padStart(5)} %  ${category}`);
    }
  }
}
