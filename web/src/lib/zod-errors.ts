/** Minimal shape of a zod error, so lib/ does not import zod itself. */
interface IssueLike {
  path: PropertyKey[];
  message: string;
}

/** First message per top-level field ('requirements.2' for list items as well as 'requirements'). */
export function issuesByField(issues: readonly IssueLike[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of issues) {
    const key = i.path.length ? String(i.path[0]) : '_form';
    if (!(key in out)) out[key] = i.message;
    if (i.path.length > 1) {
      const sub = `${String(i.path[0])}.${String(i.path[1])}`;
      if (!(sub in out)) out[sub] = i.message;
    }
  }
  return out;
}
