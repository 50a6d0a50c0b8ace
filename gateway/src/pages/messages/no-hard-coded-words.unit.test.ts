// Every word a page shows comes from the catalogue (docs/decisions/0025-page-languages.md): this
// reads the JSX of every page, the area pieces and the sign-in flows, and fails on text written
// in it: a JSX text node, a quoted or templated string in braces, or a label-like attribute
// (aria-label, label, title, ...) with words in it. Identifiers a page shows as they are
// (client_key, commands, settings) are listed here.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');
const FOLDERS = [
  'gateway/src/pages',
  'gateway/src/features/console',
  'gateway/src/features/portal',
];

/** Attributes a person reads or hears. */
const WORDED = new Set(['aria-label', 'label', 'title', 'placeholder', 'alt', 'button', 'text']);

/** Written as they are in every language: identifiers, commands, settings, units. */
const IDENTIFIERS = new Set([
  'client_key',
  'client_secret',
  'CLIENT_SECRET',
  'TRUST_PROXY',
  'jq',
  'npm run console -- link',
  '<!doctype html>',
]);

const words = (text: string) => /\p{L}{2,}/u.test(text);

function tsxFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.tsx'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The hard-coded texts of a TSX source, each with its line. */
function hardCodedTexts(source: string, name = 'page.tsx'): string[] {
  const file = ts.createSourceFile(name, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const note = (node: ts.Node, text: string) => {
    const trimmed = text.replace(/\s+/g, ' ').trim();
    if (!words(trimmed) || IDENTIFIERS.has(trimmed)) return;
    const { line } = file.getLineAndCharacterOfPosition(node.getStart());
    found.push(`${line + 1}: ${trimmed}`);
  };
  const literal = (node: ts.Node | undefined): string | null => {
    if (!node) return null;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
    if (ts.isTemplateExpression(node))
      return [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(' ');
    return null;
  };
  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node)) note(node, node.text);
    if (ts.isJsxExpression(node) && node.parent && !ts.isJsxAttribute(node.parent)) {
      const text = literal(node.expression);
      if (text !== null) note(node, text);
    }
    if (ts.isJsxAttribute(node) && WORDED.has(node.name.getText())) {
      const value = node.initializer;
      const text = value && ts.isJsxExpression(value) ? literal(value.expression) : literal(value);
      if (text !== null) note(node, text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('the pages’ words', () => {
  it('when a view writes a text of its own, then the scan names it', () => {
    const view = `const V = () => (
      <p aria-label="Close it">
        Hello there {'and more'} {\`\${n} rows\`} {t.ok} <code>client_key</code>
      </p>
    );`;
    expect(hardCodedTexts(view)).toEqual([
      '2: Close it',
      '3: Hello there',
      '3: and more',
      '3: rows',
    ]);
  });

  it('when the pages are read, then every text they show comes from the catalogue', () => {
    const offences = FOLDERS.flatMap(tsxFiles).flatMap((path) =>
      hardCodedTexts(readFileSync(path, 'utf8'), path).map(
        (found) => `${relative(ROOT, path)}:${found}`,
      ),
    );
    expect(offences).toEqual([]);
  });
});
