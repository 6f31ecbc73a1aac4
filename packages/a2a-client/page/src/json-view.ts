// A JSON document drawn as an indented tree in which each value knows its JSON Pointer, so that a
// schema problem can be shown where it is: the value marked, the problem's words beside it.
import { h, type Child } from './dom.js';

export interface Problem {
  path: string;
  message: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** A JSON Pointer token, escaped (RFC 6901). */
function token(key: string | number): string {
  return String(key).replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The words a problem is shown with: a missing property is named, as a reader looks for it. */
export function problemText(problem: Problem): string {
  const missing = problem.params?.missingProperty;
  if (problem.keyword === 'required' && typeof missing === 'string') return `missing required property "${missing}"`;
  const extra = problem.params?.additionalProperty;
  if (problem.keyword === 'additionalProperties' && typeof extra === 'string') return `property "${extra}" is not allowed here`;
  return problem.message;
}

/** The tree, with each problem on the value its pointer names (or the nearest value that exists). */
export function jsonTree(value: unknown, problems: readonly Problem[], idPrefix: string): HTMLElement {
  const pointers = new Set<string>();
  const collect = (v: unknown, at: string) => {
    pointers.add(at);
    if (v && typeof v === 'object') for (const [k, inner] of Object.entries(v)) collect(inner, `${at}/${token(k)}`);
  };
  collect(value, '');
  const byPointer = new Map<string, Problem[]>();
  for (const problem of problems) {
    let at = problem.path;
    while (!pointers.has(at) && at !== '') at = at.slice(0, at.lastIndexOf('/'));
    byPointer.set(at, [...(byPointer.get(at) ?? []), problem]);
  }
  const node = (v: unknown, at: string, key: Child, last: boolean): HTMLElement => {
    const here = byPointer.get(at);
    const notes = here ? h('span', { class: 'problem-note' }, ` ⚠ ${here.map(problemText).join('; ')}`) : null;
    const comma = last ? '' : ',';
    const attributes = {
      class: here ? 'json-line problem' : 'json-line',
      'data-pointer': at,
      id: here ? `${idPrefix}${at}` : null,
      tabindex: here ? -1 : null,
    };
    if (v && typeof v === 'object') {
      const entries = Array.isArray(v) ? v.map((inner, i) => [i, inner] as const) : Object.entries(v);
      const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
      if (entries.length === 0) return h('div', attributes, key, h('span', { class: 'json-punct' }, `${open}${close}${comma}`), notes);
      return h(
        'div',
        attributes,
        h('div', null, key, h('span', { class: 'json-punct' }, open), notes),
        h(
          'div',
          { class: 'json-children' },
          entries.map(([k, inner], i) =>
            node(
              inner,
              `${at}/${token(k)}`,
              Array.isArray(v) ? null : [h('span', { class: 'json-key' }, JSON.stringify(k)), ': '],
              i === entries.length - 1,
            ),
          ),
        ),
        h('div', null, h('span', { class: 'json-punct' }, `${close}${comma}`)),
      );
    }
    return h('div', attributes, key, h('span', { class: `json-${v === null ? 'null' : typeof v}` }, JSON.stringify(v)), comma, notes);
  };
  return h('div', { class: 'json-tree' }, node(value, '', null, true));
}
