// A small history router (docs/ui.md#urls): every screen has a URL under /p/<project id>/, which
// no API path uses, so a shared link opens the same screen and the server answers it with the UI.
import { createContext, useCallback, useContext, useEffect, useState, type AnchorHTMLAttributes, type ReactNode } from 'react';

interface Location {
  pathname: string;
  search: string;
}

interface RouterValue {
  location: Location;
  navigate: (to: string, options?: { replace?: boolean }) => void;
}

const RouterContext = createContext<RouterValue | null>(null);

const current = (): Location => ({ pathname: window.location.pathname, search: window.location.search });

export function Router({ children }: { children: ReactNode }) {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const onPop = () => setLocation(current());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const navigate = useCallback((to: string, options: { replace?: boolean } = {}) => {
    if (options.replace) window.history.replaceState(null, '', to);
    else window.history.pushState(null, '', to);
    setLocation(current());
  }, []);
  return <RouterContext.Provider value={{ location, navigate }}>{children}</RouterContext.Provider>;
}

export function useRouter(): RouterValue {
  const value = useContext(RouterContext);
  if (!value) throw new Error('useRouter outside <Router>');
  return value;
}

/** The screen a path names, with its parameters; null when no screen has it. */
export type Route =
  | { screen: 'home' }
  | { screen: 'traces'; projectId: string }
  | { screen: 'trace'; projectId: string; traceId: string; spanId: string | null }
  | { screen: 'sessions'; projectId: string }
  | { screen: 'session'; projectId: string; sessionId: string }
  | { screen: 'login' }
  | { screen: 'set-password' }
  | { screen: 'admin'; projectId: string; section: AdminSection }
  | EvaluationRoute
  | ResourceRoute
  | HumanRoute;

/** The route of one kind of screen: `RouteOf<'trace'>` has its `traceId` and `spanId`. */
export type RouteOf<S extends Route['screen']> = Extract<Route, { screen: S }>;

/** The administration screens, each at `/p/<project>/admin/<section>` (docs/ui.md#administration). */
export const adminSections = ['projects', 'keys', 'members', 'audit', 'prices', 'scores'] as const;
export type AdminSection = (typeof adminSections)[number];
const isAdminSection = (value: string | undefined): value is AdminSection => adminSections.includes(value as AdminSection);

/** Human evaluation (docs/ui.md#urls): the judge and the case (from 1) in the query string. */
export type HumanRoute =
  | { screen: 'human-evaluations'; projectId: string }
  | { screen: 'human-evaluation'; projectId: string; evaluationId: string }
  | { screen: 'human-judge'; projectId: string; evaluationId: string; judge: string | null; at: number | null };

function humanRoute(projectId: string, rest: string[], search: string): HumanRoute | null {
  const params = new URLSearchParams(search);
  if (rest.length === 0) return { screen: 'human-evaluations', projectId };
  if (rest.length === 1) return { screen: 'human-evaluation', projectId, evaluationId: rest[0] };
  if (rest.length === 2 && rest[1] === 'judge')
    return { screen: 'human-judge', projectId, evaluationId: rest[0], judge: params.get('judge') || null, at: revisionParam(params, 'case') };
  return null;
}

/** Apps, their variants and evaluator configs, and test sets (docs/ui.md#urls); ids are REST's. */
export type ResourceRoute =
  | { screen: 'apps'; projectId: string }
  | { screen: 'app'; projectId: string; appId: string }
  | { screen: 'config-new'; projectId: string; appId: string }
  | { screen: 'config'; projectId: string; appId: string; configId: string }
  | { screen: 'variant'; projectId: string; appId: string; variantId: string; from: number | null; to: number | null }
  | { screen: 'testsets'; projectId: string }
  | { screen: 'testset'; projectId: string; testsetId: string; after: string | null; revision: number | null };

/** A positive whole number from the query string (a revision, a case), else null. */
function revisionParam(params: URLSearchParams, name: string): number | null {
  const value = Number(params.get(name));
  return Number.isInteger(value) && value > 0 ? value : null;
}

function resourceRoute(projectId: string, parts: string[], search: string): ResourceRoute | null {
  const params = new URLSearchParams(search);
  const [kind, id, sub, subId, ...more] = parts;
  if (more.length > 0) return null;
  if (kind === 'testsets') {
    if (id === undefined) return { screen: 'testsets', projectId };
    return sub === undefined ? { screen: 'testset', projectId, testsetId: id, after: params.get('after'), revision: revisionParam(params, 'revision') } : null;
  }
  if (kind !== 'apps') return null;
  if (id === undefined) return { screen: 'apps', projectId };
  if (sub === undefined) return { screen: 'app', projectId, appId: id };
  if (sub === 'configs' && subId === 'new') return { screen: 'config-new', projectId, appId: id };
  if (sub === 'configs' && subId) return { screen: 'config', projectId, appId: id, configId: subId };
  if (sub === 'variants' && subId)
    return { screen: 'variant', projectId, appId: id, variantId: subId, from: revisionParam(params, 'from'), to: revisionParam(params, 'to') };
  return null;
}

/** The evaluation screens (docs/ui.md#urls); ids are the ones REST uses. */
export type EvaluationRoute =
  | { screen: 'evaluations'; projectId: string }
  | { screen: 'evaluation-new'; projectId: string }
  | { screen: 'evaluation'; projectId: string; evaluationId: string }
  | { screen: 'evaluation-compare'; projectId: string; evaluationIds: string[] };

function evaluationRoute(projectId: string, rest: string[], search: string): EvaluationRoute | null {
  if (rest.length === 0) return { screen: 'evaluations', projectId };
  if (rest.length !== 1) return null;
  if (rest[0] === 'new') return { screen: 'evaluation-new', projectId };
  if (rest[0] === 'compare') {
    const ids = (new URLSearchParams(search).get('ids') ?? '').split(',').filter(Boolean);
    return { screen: 'evaluation-compare', projectId, evaluationIds: ids };
  }
  return { screen: 'evaluation', projectId, evaluationId: rest[0] };
}

export function matchRoute(pathname: string, search = ''): Route | null {
  if (pathname === '/' || pathname === '') return { screen: 'home' };
  if (pathname === '/login') return { screen: 'login' };
  if (pathname === '/set-password') return { screen: 'set-password' };
  const parts = pathname.replace(/\/+$/, '').split('/').slice(1).map(decodeURIComponent);
  if (parts[0] !== 'p' || !parts[1]) return null;
  const projectId = parts[1];
  if (parts.length === 2 || (parts.length === 3 && parts[2] === 'traces')) return { screen: 'traces', projectId };
  if (parts.length === 4 && parts[2] === 'traces') return { screen: 'trace', projectId, traceId: parts[3], spanId: new URLSearchParams(search).get('span') };
  if (parts[2] === 'sessions' && parts.length === 3) return { screen: 'sessions', projectId };
  if (parts[2] === 'sessions' && parts.length === 4) return { screen: 'session', projectId, sessionId: parts[3] };
  if (parts[2] === 'admin' && parts.length <= 4) {
    const section = parts[3] ?? 'keys';
    if (isAdminSection(section)) return { screen: 'admin', projectId, section };
  }
  if (parts[2] === 'evaluations') return evaluationRoute(projectId, parts.slice(3), search);
  if (parts[2] === 'apps' || parts[2] === 'testsets') return resourceRoute(projectId, parts.slice(2), search);
  if (parts[2] === 'human-evaluations') return humanRoute(projectId, parts.slice(3), search);
  return null;
}

export const paths = {
  traces: (projectId: string, search = '') => `/p/${encodeURIComponent(projectId)}/traces${search}`,
  trace: (projectId: string, traceId: string, spanId?: string | null) =>
    `/p/${encodeURIComponent(projectId)}/traces/${encodeURIComponent(traceId)}${spanId ? `?span=${encodeURIComponent(spanId)}` : ''}`,
  sessions: (projectId: string, search = '') => `/p/${encodeURIComponent(projectId)}/sessions${search}`,
  session: (projectId: string, sessionId: string) => `/p/${encodeURIComponent(projectId)}/sessions/${encodeURIComponent(sessionId)}`,
  admin: (projectId: string, section: AdminSection, search = '') => `/p/${encodeURIComponent(projectId)}/admin/${section}${search}`,
  /** The login page, coming back to `next` (a path of this UI) once signed in. */
  login: (next?: string | null) => {
    const back = localPath(next);
    return back === '/' || back.startsWith('/login') ? '/login' : `/login?next=${encodeURIComponent(back)}`;
  },
  evaluations: (projectId: string) => `/p/${encodeURIComponent(projectId)}/evaluations`,
  newEvaluation: (projectId: string) => `/p/${encodeURIComponent(projectId)}/evaluations/new`,
  evaluation: (projectId: string, evaluationId: string) => `/p/${encodeURIComponent(projectId)}/evaluations/${encodeURIComponent(evaluationId)}`,
  apps: (projectId: string) => `/p/${encodeURIComponent(projectId)}/apps`,
  app: (projectId: string, appId: string) => `/p/${encodeURIComponent(projectId)}/apps/${encodeURIComponent(appId)}`,
  newConfig: (projectId: string, appId: string) => `/p/${encodeURIComponent(projectId)}/apps/${encodeURIComponent(appId)}/configs/new`,
  config: (projectId: string, appId: string, configId: string) =>
    `/p/${encodeURIComponent(projectId)}/apps/${encodeURIComponent(appId)}/configs/${encodeURIComponent(configId)}`,
  variant: (projectId: string, appId: string, variantId: string, from?: number, to?: number) =>
    `/p/${encodeURIComponent(projectId)}/apps/${encodeURIComponent(appId)}/variants/${encodeURIComponent(variantId)}${from && to ? `?from=${from}&to=${to}` : ''}`,
  testsets: (projectId: string) => `/p/${encodeURIComponent(projectId)}/testsets`,
  testset: (projectId: string, testsetId: string, after?: string | null, revision?: number | null) => {
    const query = new URLSearchParams();
    if (revision) query.set('revision', String(revision));
    if (after) query.set('after', after);
    const search = query.toString();
    return `/p/${encodeURIComponent(projectId)}/testsets/${encodeURIComponent(testsetId)}${search ? `?${search}` : ''}`;
  },
  humanEvaluations: (projectId: string) => `/p/${encodeURIComponent(projectId)}/human-evaluations`,
  humanEvaluation: (projectId: string, evaluationId: string) => `/p/${encodeURIComponent(projectId)}/human-evaluations/${encodeURIComponent(evaluationId)}`,
  humanJudge: (projectId: string, evaluationId: string, judge?: string, at?: number | null) => {
    const query = new URLSearchParams();
    if (judge) query.set('judge', judge);
    if (judge && at) query.set('case', String(at));
    const search = query.toString();
    return `/p/${encodeURIComponent(projectId)}/human-evaluations/${encodeURIComponent(evaluationId)}/judge${search ? `?${search}` : ''}`;
  },
  compareEvaluations: (projectId: string, evaluationIds: string[]) =>
    `/p/${encodeURIComponent(projectId)}/evaluations/compare?ids=${evaluationIds.map(encodeURIComponent).join(',')}`,
};

/** `next` when it is a path of this UI (never another site's, `//host` included), else `/`. */
export function localPath(next: string | null | undefined): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}

/** A link that navigates in the page; a modified click (new tab) stays the browser's. */
export function Link({ to, ...props }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const { navigate } = useRouter();
  return (
    <a
      {...props}
      href={to}
      onClick={(event) => {
        props.onClick?.(event);
        if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(to);
      }}
    />
  );
}
