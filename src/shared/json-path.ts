// The subset of JSONPath that mappings use (test rows from spans, docs/resources.md#test-cases-from-production;
// online rules, docs/online-evaluation.md#mapping):
// `$`, then members (`.name`, `['name']`, `["name"]`) and array indexes (`[0]`, `[-1]` from the
// end). No wildcards, filters or recursion: a mapping names one value per column.

export type PathSegment = string | number;

const segmentPattern = /^(?:\.([A-Za-z_$][\w$-]*)|\[(-?\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\])/;

/** The segments of `path`, or the reason it is not in the subset. */
export function parseJsonPath(path: string): PathSegment[] | string {
  if (!path.startsWith('$')) return 'A JSONPath starts with $';
  const segments: PathSegment[] = [];
  let rest = path.slice(1);
  while (rest !== '') {
    const match = segmentPattern.exec(rest);
    if (!match) return `Unsupported JSONPath at "${rest}": use .name, ['name'] or [index]`;
    const [whole, dotted, index, single, double] = match;
    if (index !== undefined) segments.push(Number(index));
    else segments.push((dotted ?? single ?? double).replace(/\\(.)/g, '$1'));
    rest = rest.slice(whole.length);
  }
  return segments;
}

/** The value at the path, or undefined when the document has none there. */
export function readJsonPath(document: unknown, segments: readonly PathSegment[]): unknown {
  let value = document;
  for (const segment of segments) {
    if (typeof segment === 'number') {
      if (!Array.isArray(value)) return undefined;
      value = value[segment < 0 ? value.length + segment : segment];
    } else {
      if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, segment)) return undefined;
      value = (value as Record<string, unknown>)[segment];
    }
  }
  return value;
}
