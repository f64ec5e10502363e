// A list read a page at a time until its end (the API's pages hold at most 100): the first page
// shown at once, the rest appended as they come (docs/ui.md#the-results-table). A reload overwrites
// rows in place, so a table never empties under the reader.
import { useEffect, useState, type DependencyList } from 'react';

export interface Page<T> {
  items: readonly T[];
  hasNextPage: boolean;
  endCursor: string | null | undefined;
}

export interface Paged<T> {
  rows: readonly T[];
  /** Every page of this load has arrived. */
  complete: boolean;
  error: unknown;
  /** Replaces one loaded row (after a mutation answered it anew). */
  replace: (index: number, row: T) => void;
}

/** Every page `load` answers, from the start; loads again when `deps` change. */
export function usePagedRows<T>(load: (after: string | null) => Promise<Page<T> | null>, deps: DependencyList): Paged<T> {
  const [state, setState] = useState<Omit<Paged<T>, 'replace'>>({ rows: [], complete: false, error: null });
  useEffect(() => {
    let cancelled = false;
    (async () => {
      const loaded: T[] = [];
      let after: string | null = null;
      for (;;) {
        const page: Page<T> | null = await load(after);
        if (cancelled) return;
        if (page) loaded.push(...page.items);
        const more = Boolean(page?.hasNextPage && page.endCursor);
        const snapshot = [...loaded];
        setState((current) => ({ rows: more ? [...snapshot, ...current.rows.slice(snapshot.length)] : snapshot, complete: !more, error: null }));
        if (!more) break;
        after = page!.endCursor ?? null;
      }
    })().catch((error: unknown) => {
      if (!cancelled) setState((current) => ({ ...current, error }));
    });
    return () => {
      cancelled = true;
    };
    // The caller's deps decide when to load anew (`load` is a fresh closure each render).
  }, deps);
  const replace = (index: number, row: T) => setState((current) => ({ ...current, rows: current.rows.map((existing, at) => (at === index ? row : existing)) }));
  return { ...state, replace };
}
