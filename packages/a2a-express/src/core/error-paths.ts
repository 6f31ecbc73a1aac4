// The core names what is wrong in a call by where it is in the operation's params (1.0's
// fields). An older version's params put some of those elsewhere; its translation renames them,
// so that its client reads the path of the field it sent.
import { A2AError, type ValidationIssue } from 'a2a-types/model';

/**
 * The error with the paths of its issues renamed by `renames` (a path and everything below it);
 * undefined when it has none to rename.
 */
export function withPathsRenamed(error: A2AError, renames: Readonly<Record<string, string>>): A2AError | undefined {
  const issues = issuesOf(error.data);
  if (!issues) return undefined;
  let changed = false;
  const renamed = issues.map((issue) => {
    const path = renamedPath(issue.path, renames);
    if (path === issue.path) return issue;
    changed = true;
    return { ...issue, path };
  });
  if (!changed) return undefined;
  const data = Array.isArray(error.data) ? renamed : { ...(error.data as object), issues: renamed };
  return new A2AError(error.code, error.message, data, error.reason);
}

function renamedPath(path: string, renames: Readonly<Record<string, string>>): string {
  for (const [from, to] of Object.entries(renames)) {
    if (path === from || path.startsWith(`${from}/`)) return to + path.slice(from.length);
  }
  return path;
}

function issuesOf(data: unknown): ValidationIssue[] | undefined {
  const list = Array.isArray(data) ? data : (data as { issues?: unknown } | undefined)?.issues;
  if (!Array.isArray(list) || !list.every((item) => item && typeof item === 'object' && typeof item.path === 'string')) return undefined;
  return list as ValidationIssue[];
}
