// Summarises a V8 .cpuprofile (from `npm run bench:one -- <name> --cpu-prof`): self time by function and by
// package, to find what the core spends its CPU on. Usage: vite-node bench/tools/profile-summary.ts <file> [top]
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function packageOf(url: string): string {
  if (url === '') return '(native / idle / gc)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1];
  if (url.startsWith('node:')) return 'node core';
  const source = /\/(src|dist|bench)\/(.+)$/.exec(url);
  return source ? `${source[1]}/${source[2]}` : url;
}

function summarise(file: string, top: number): string {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, index) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  const total = [...selfUs.values()].reduce((sum, value) => sum + value, 0);
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const key = `${functionName || '(anonymous)'} ${packageOf(url)}:${lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    byPackage.set(packageOf(url), (byPackage.get(packageOf(url)) ?? 0) + us);
  }
  // Total (inclusive) time: each node's self time plus its descendants', counted once per function per stack.
  const byFunctionTotal = new Map<string, number>();
  const keyOf = (node: ProfileNode) =>
    `${node.callFrame.functionName || '(anonymous)'} ${packageOf(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
  const visit = (id: number, onStack: Set<string>): number => {
    const node = byId.get(id)!;
    const key = keyOf(node);
    const nested = onStack.has(key);
    if (!nested) onStack.add(key);
    let total = selfUs.get(id) ?? 0;
    for (const child of node.children ?? []) total += visit(child, onStack);
    if (!nested) {
      onStack.delete(key);
      if (node.callFrame.url !== '') byFunctionTotal.set(key, (byFunctionTotal.get(key) ?? 0) + total);
    }
    return total;
  };
  visit(profile.nodes[0].id, new Set());
  const table = (map: Map<string, number>) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, us]) => `${((100 * us) / total).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`)
      .join('\n');
  return `${file}: ${(total / 1e6).toFixed(1)} s sampled\n\nby package\n${table(byPackage)}\n\nby function (self time)\n${table(byFunction)}\n\nby function (total time, JavaScript only)\n${table(byFunctionTotal)}\n`;
}

const [file, top = '25'] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: vite-node bench/tools/profile-summary.ts <file.cpuprofile> [top]\n');
  process.exit(1);
}
process.stdout.write(summarise(file, Number(top)));
