// The code's shape as a newcomer meets it, read with the TypeScript compiler's syntax tree:
// top-level functions over 100 lines, imports that climb three or more folders, import circles
// (type-only imports included), and imports inside gateway/src that run from a lower layer up to a
// higher one (trust/ → http/, pages/, cli/ → features/ → the files that wire the app).
//
//   npx tsx scripts/code-shape.ts            the product's folders, tests aside; exits 1 past a bound
//   npx tsx scripts/code-shape.ts bench scripts
//
// The bounds are the ones the project keeps (docs/architecture.md, "The code's shape"); test/module-boundaries
// asserts them too.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import ts from 'typescript';

/** The folders the processes are built from; tests, the bench and the scripts are apart. */
export const PRODUCT_FOLDERS = ['gateway', 'worker', 'api', 'read-model', 'common'];
export const BOUNDS = {
  longLines: 100,
  longestLines: 150,
  longAllowed: 0,
  /** A file a screen or two: at most `longFilesAllowed` over `longFileLines`. */
  longFileLines: 400,
  longFilesAllowed: 2,
  climbFolders: 3,
};

const ROOT = path.resolve(import.meta.dirname, '..');
const SKIPPED = new Set(['node_modules', 'dist', 'generated', 'coverage']);
const isTest = (file: string) =>
  /\.test\.tsx?$/.test(file) || file.split(path.sep).includes('test');

function sourceFiles(folder: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory() && !SKIPPED.has(entry.name)) files.push(...sourceFiles(full));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(full);
  }
  return files;
}

export interface LongFunction {
  file: string;
  name: string;
  lines: number;
}

/** A statement's functions at the top of a file: declarations, and constants holding one. */
function topLevelFunctions(sf: ts.SourceFile): { name: string; node: ts.Node }[] {
  const found: { name: string; node: ts.Node }[] = [];
  const unwrap = (e: ts.Expression): ts.Expression =>
    ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e)
      ? unwrap(e.expression)
      : e;
  for (const statement of sf.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.body)
      found.push({ name: statement.name?.text ?? 'default', node: statement });
    if (ts.isVariableStatement(statement))
      for (const d of statement.declarationList.declarations) {
        const value = d.initializer && unwrap(d.initializer);
        if (value && (ts.isArrowFunction(value) || ts.isFunctionExpression(value)))
          found.push({ name: d.name.getText(sf), node: d });
      }
  }
  return found;
}

/** The module names a file imports or re-exports, type-only and dynamic imports included. */
function importsOf(sf: ts.SourceFile): string[] {
  const names: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      names.push(node.moduleSpecifier.text);
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    )
      names.push(node.arguments[0].text);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const literal = node.argument.literal;
      if (ts.isStringLiteral(literal)) names.push(literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return names;
}

/** The project file an import names (`.js` written, `.ts` or `.tsx` on disk), if it is one. */
function resolve(from: string, name: string): string | undefined {
  const base = name.startsWith('#')
    ? path.join(ROOT, name.slice(1))
    : name.startsWith('.')
      ? path.resolve(path.dirname(from), name)
      : undefined;
  if (!base) return undefined;
  for (const candidate of [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), base])
    if (statSync(candidate, { throwIfNoEntry: false })?.isFile()) return candidate;
  return undefined;
}

/** Import circles: Tarjan's strongly connected components of more than one file. */
function circles(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const to of graph.get(file) ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.has(file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) connect(file);
  return found;
}

/** What the features' handlers, pages and CLI commands are given, declared beside them for them. */
const DECLARED_FOR_FEATURES = new Set([
  'endpoint-services.ts',
  'page-services.ts',
  'cli-services.ts',
]);

/**
 * gateway/src's layers, lowest first; a file may import its own layer's files or lower ones. The
 * files at its top wire the app, but for DECLARED_FOR_FEATURES.
 */
function gatewayLayer(file: string): number | undefined {
  const parts = path.relative(path.join(ROOT, 'gateway/src'), file).split(path.sep);
  if (parts[0] === '..' || parts.length === 0) return undefined;
  if (parts.length === 1) return DECLARED_FOR_FEATURES.has(parts[0]!) ? 2 : 3;
  return { trust: 0, http: 1, pages: 1, cli: 1, features: 2 }[parts[0]!];
}

export function codeShape(folders: string[]) {
  const files = folders
    .flatMap((folder) => sourceFiles(path.join(ROOT, folder)))
    .filter((file) => !isTest(path.relative(ROOT, file)));
  const long: LongFunction[] = [];
  const longFiles: { file: string; lines: number }[] = [];
  const climbing: string[] = [];
  const upward: string[] = [];
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const relative = path.relative(ROOT, file);
    const fileLines = sf.getLineAndCharacterOfPosition(sf.getEnd()).line + 1;
    if (fileLines > BOUNDS.longFileLines) longFiles.push({ file: relative, lines: fileLines });
    for (const { name, node } of topLevelFunctions(sf)) {
      const line = (position: number) => sf.getLineAndCharacterOfPosition(position).line;
      const lines = line(node.getEnd()) - line(node.getStart(sf)) + 1;
      if (lines > BOUNDS.longLines) long.push({ file: relative, name, lines });
    }
    const edges = new Set<string>();
    for (const name of importsOf(sf)) {
      if (name.split('/').filter((part) => part === '..').length >= BOUNDS.climbFolders)
        climbing.push(`${relative}: ${name}`);
      const to = resolve(file, name);
      if (!to) continue;
      edges.add(to);
      const [fromLayer, toLayer] = [gatewayLayer(file), gatewayLayer(to)];
      if (fromLayer !== undefined && toLayer !== undefined && toLayer > fromLayer)
        upward.push(`${relative} → ${path.relative(ROOT, to)}`);
    }
    graph.set(file, edges);
  }
  return {
    files: files.length,
    long: long.sort((a, b) => b.lines - a.lines),
    longFiles: longFiles.sort((a, b) => b.lines - a.lines),
    climbing,
    circles: circles(graph).map((c) => c.map((file) => path.relative(ROOT, file))),
    upward,
  };
}

export function withinBounds(shape: ReturnType<typeof codeShape>): boolean {
  return (
    shape.long.length <= BOUNDS.longAllowed &&
    shape.long.every((f) => f.lines <= BOUNDS.longestLines) &&
    shape.longFiles.length <= BOUNDS.longFilesAllowed &&
    shape.climbing.length === 0 &&
    shape.circles.length === 0 &&
    shape.upward.length === 0
  );
}

if (import.meta.filename === process.argv[1]) {
  const folders = process.argv.slice(2);
  const unknown = folders.filter((f) => !statSync(path.join(ROOT, f), { throwIfNoEntry: false }));
  if (unknown.length) {
    console.error(`code-shape: no folder ${unknown.join(', ')}`);
    process.exit(2);
  }
  const shape = codeShape(folders.length ? folders : PRODUCT_FOLDERS);
  const list = (items: string[]) => items.map((item) => `\n  ${item}`).join('');
  console.log(
    `${shape.files} files (${(folders.length ? folders : PRODUCT_FOLDERS).join(', ')}; tests aside)\n` +
      `top-level functions over ${BOUNDS.longLines} lines: ${shape.long.length} (at most ${BOUNDS.longAllowed}, none over ${BOUNDS.longestLines})` +
      list(shape.long.map((f) => `${f.lines} ${f.name} (${f.file})`)) +
      `\nfiles over ${BOUNDS.longFileLines} lines: ${shape.longFiles.length} (at most ${BOUNDS.longFilesAllowed})` +
      list(shape.longFiles.map((f) => `${f.lines} ${f.file}`)) +
      `\nimports climbing ${BOUNDS.climbFolders} or more folders: ${shape.climbing.length}${list(shape.climbing)}` +
      `\nimport circles: ${shape.circles.length}${list(shape.circles.map((c) => c.join(' → ')))}` +
      `\nimports up a layer inside gateway/src: ${shape.upward.length}${list(shape.upward)}`,
  );
  process.exitCode = withinBounds(shape) || folders.length ? 0 : 1;
}
