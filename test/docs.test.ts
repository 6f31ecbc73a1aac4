// The README is the front door and docs/ holds the rest: every link between them, and from the
// packages' own READMEs, must lead to a file that exists and, with a #fragment, to a heading in it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  ...['packages', 'apps'].flatMap((dir) =>
    readdirSync(join(root, dir))
      .map((p) => `${dir}/${p}/README.md`)
      .filter((p) => existsSync(join(root, p))),
  ),
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function headings(markdown: string): Set<string> {
  const outsideCode = markdown.replace(/^```[\s\S]*?^```$/gm, '');
  return new Set([...outsideCode.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}

function links(markdown: string): string[] {
  const outsideCode = markdown.replace(/^```[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');
  return [...outsideCode.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/.test(target));
}

test.each(pages)('%s: every relative link resolves', (page) => {
  const text = readFileSync(join(root, page), 'utf8');
  for (const link of links(text)) {
    const [path, fragment] = link.split('#') as [string, string | undefined];
    const target = path ? resolve(dirname(join(root, page)), path) : join(root, page);
    expect([link, relative(root, target).startsWith('..') ? 'outside the repository' : existsSync(target)]).toEqual([link, true]);
    if (fragment !== undefined) {
      expect(statSync(target).isFile()).toBe(true);
      expect([link, headings(readFileSync(target, 'utf8')).has(fragment)]).toEqual([link, true]);
    }
  }
});

test('the README stays a front door: the internals live in docs/', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  expect(Buffer.byteLength(readme)).toBeLessThan(30_000);
  // The README's headings, in order, up to the internals.
  const order = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
  expect(order.indexOf('Use it in your own Express app')).toBeLessThan(order.indexOf('Architecture'));
  expect(order.indexOf('Use it in your own Express app')).toBe(1);
  for (const page of ['replicas.md', 'architecture.md', 'spec-choices.md']) expect(readme).toContain(`](docs/${page}`);
});
