/**
 * The global style sheet keeps only tokens, base element rules and the few shared primitives, and
 * no rule in it or in a component's CSS module is dead (issue #50: "the global sheet is at most
 * 300 lines; no rule is unused"). Reads the sources; nothing is rendered.
 * - app.css: every class it styles appears in a string of some web source (.ts, .tsx, index.html).
 * - a *.module.css: every class it defines is read as `styles.x` / `styles['x']` (or by a template
 *   key such as styles[`badge--${status}`]) in a file that imports that module.
 */
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postcss from 'postcss';
import ts from 'typescript';

const web = fileURLToPath(new URL('../..', import.meta.url));
const src = path.join(web, 'src');
// Issue #50 asks for at most 300; app.css is at 284 (tokens, base rules, utilities, form rules).
const MAX_GLOBAL_LINES = 284;

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(path.join(dir, d.name)) : [path.join(dir, d.name)],
  );
}
const files = walk(src);
const sources = files.filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$|\/test\//.test(f));
const modules = files.filter((f) => f.endsWith('.module.css'));
const read = (f: string) => readFileSync(f, 'utf8');

/** The classes a sheet defines: `.x` in its selectors, outside :global(...) for a module. */
function classesOf(css: string, file: string): string[] {
  const found = new Set<string>();
  postcss.parse(css, { from: file }).walkRules((rule) => {
    if (rule.parent?.type === 'atrule' && /keyframes/.test((rule.parent as postcss.AtRule).name))
      return;
    const local = rule.selector.replace(/:global\([^)]*\)/g, '');
    for (const m of local.matchAll(/\.([a-zA-Z_][\w-]*)/g)) found.add(m[1]);
  });
  return [...found];
}

/**
 * Every whitespace-separated word in the strings and template texts of the web sources, and the
 * words that run into a substitution (`badge--` in `badge--${status}`).
 */
function wordsInStrings(): { words: Set<string>; prefixes: Set<string> } {
  const words = new Set<string>();
  const prefixes = new Set<string>();
  const add = (s: string) => s.split(/\s+/).forEach((w) => w && words.add(w));
  for (const f of sources) {
    const sf = ts.createSourceFile(f, read(f), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
    const visit = (n: ts.Node): void => {
      if (ts.isStringLiteralLike(n) || ts.isTemplateLiteralToken(n)) add(n.text);
      // `badge--${status}`: the word before a substitution names every class it begins.
      if (ts.isTemplateHead(n) || ts.isTemplateMiddle(n)) {
        const last = /(\S+)$/.exec(n.text)?.[1];
        if (last) prefixes.add(last);
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  for (const m of read(path.join(web, 'index.html')).matchAll(/class="([^"]*)"/g)) add(m[1]);
  return { words, prefixes };
}

/** The names a file reads from the module it imports as `name`: name.x, name['x'], name[`x${`. */
function readsOf(text: string, name: string): { exact: Set<string>; prefixes: string[] } {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const m of text.matchAll(new RegExp(`\\b${name}\\.([\\w$]+)`, 'g'))) exact.add(m[1]);
  for (const m of text.matchAll(new RegExp(`\\b${name}\\[(['"])([^'"]+)\\1\\]`, 'g')))
    exact.add(m[2]);
  for (const m of text.matchAll(new RegExp(`\\b${name}\\[\`([^\`$]*)\\$\\{`, 'g')))
    prefixes.push(m[1]);
  return { exact, prefixes };
}

describe('the style sheets', () => {
  const appCss = read(path.join(src, 'styles/app.css'));

  it(`keeps the global sheet to at most ${MAX_GLOBAL_LINES} lines`, () => {
    expect(appCss.trimEnd().split('\n').length).toBeLessThanOrEqual(MAX_GLOBAL_LINES);
  });

  it('styles no class in the global sheet that no source uses', () => {
    const { words, prefixes } = wordsInStrings();
    const used = (c: string) => words.has(c) || [...prefixes].some((p) => c.startsWith(p));
    expect(classesOf(appCss, 'app.css').filter((c) => !used(c))).toEqual([]);
  });

  it('defines no class in a CSS module that no importer of that module reads', () => {
    const unused: string[] = [];
    for (const mod of modules) {
      const readers = sources.flatMap((f) => {
        const text = read(f);
        return [...text.matchAll(/import\s+(\w+)\s+from\s+'([^']+\.module\.css)'/g)]
          .filter((m) => path.resolve(path.dirname(f), m[2]) === mod)
          .map((m) => readsOf(text, m[1]));
      });
      for (const c of classesOf(read(mod), mod)) {
        const used = readers.some(
          (r) => r.exact.has(c) || r.prefixes.some((p) => p !== '' && c.startsWith(p)),
        );
        if (!used) unused.push(`${path.relative(web, mod)}: .${c}`);
      }
    }
    expect(unused).toEqual([]);
  });
});
