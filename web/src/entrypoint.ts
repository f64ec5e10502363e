// A screen's entry point (docs/ui.md#routes-and-preloading), after Relay's: the screen's code,
// loaded on first use as its own chunk (React.lazy), and a `load` that starts its queries
// (`loadQuery`) as navigation happens, so code and data arrive side by side instead of one after
// the other. The screen reads what `load` started with `usePreloadedQuery`.
import { lazy, useEffect, useMemo, useRef, type ComponentType, type DependencyList, type LazyExoticComponent } from 'react';
import type { IEnvironment } from 'relay-runtime';
import type { Route } from './router.tsx';

/** The queries a screen's `load` started, by name (a PreloadedQuery each, or null when not needed). */
export type Queries = Record<string, { dispose: () => void } | null>;

export interface ScreenProps<R extends Route, Q extends Queries = Record<string, never>> {
  route: R;
  queries: Q;
}

export interface EntryPoint<R extends Route> {
  screen: LazyExoticComponent<ComponentType<ScreenProps<R, Queries>>>;
  /** Starts the screen's queries for `route` and the URL's query string; the shell disposes them. */
  load: (environment: IEnvironment, route: R, search: string) => Queries;
}

/** An entry point from a screen's module (imported only when first shown) and its queries. */
export function entryPoint<R extends Route, Q extends Queries>(
  screen: () => Promise<ComponentType<ScreenProps<R, Q>>>,
  load: (environment: IEnvironment, route: R, search: string) => Q,
): EntryPoint<R> {
  // `load` and the screen agree on Q here; the table only carries them from one to the other.
  return { screen: lazy(async () => ({ default: (await screen()) as ComponentType<ScreenProps<R, Queries>> })), load };
}

/** For a screen that starts its own queries: nothing to preload. */
export const noQueries = (): Record<string, never> => ({});

export function disposeQueries(queries: Queries): void {
  for (const query of Object.values(queries)) query?.dispose();
}

/**
 * The queries `load` starts, started anew when `deps` change (another screen, other variables, a
 * retry) and each set disposed once the next is on screen. Loading during render is what makes the
 * queries start with the navigation; StrictMode's second render in development leaks one set.
 */
export function useLoadedQueries<Q extends Queries>(load: () => Q, deps: DependencyList): Q {
  // `deps` say when to load anew; `load` is a fresh closure each render.
  const queries = useMemo(load, deps);
  const shown = useRef<Q | null>(null);
  useEffect(() => {
    if (shown.current && shown.current !== queries) disposeQueries(shown.current);
    shown.current = queries;
  }, [queries]);
  return queries;
}
