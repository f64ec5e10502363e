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
  | { screen: 'login' }
  | { screen: 'set-password' }
  | { screen: 'admin'; projectId: string; section: AdminSection };

/** The administration screens, each at `/p/<project>/admin/<section>` (docs/ui.md#administration). */
export const adminSections = ['projects', 'keys', 'members', 'audit', 'prices'] as const;
export type AdminSection = (typeof adminSections)[number];
const isAdminSection = (value: string | undefined): value is AdminSection => adminSections.includes(value as AdminSection);

export function matchRoute(pathname: string, search = ''): Route | null {
  if (pathname === '/' || pathname === '') return { screen: 'home' };
  if (pathname === '/login') return { screen: 'login' };
  if (pathname === '/set-password') return { screen: 'set-password' };
  const parts = pathname.replace(/\/+$/, '').split('/').slice(1).map(decodeURIComponent);
  if (parts[0] !== 'p' || !parts[1]) return null;
  const projectId = parts[1];
  if (parts.length === 2 || (parts.length === 3 && parts[2] === 'traces')) return { screen: 'traces', projectId };
  if (parts.length === 4 && parts[2] === 'traces') return { screen: 'trace', projectId, traceId: parts[3], spanId: new URLSearchParams(search).get('span') };
  if (parts[2] === 'admin' && parts.length <= 4) {
    const section = parts[3] ?? 'keys';
    if (isAdminSection(section)) return { screen: 'admin', projectId, section };
  }
  return null;
}

export const paths = {
  traces: (projectId: string, search = '') => `/p/${encodeURIComponent(projectId)}/traces${search}`,
  trace: (projectId: string, traceId: string, spanId?: string | null) =>
    `/p/${encodeURIComponent(projectId)}/traces/${encodeURIComponent(traceId)}${spanId ? `?span=${encodeURIComponent(spanId)}` : ''}`,
  admin: (projectId: string, section: AdminSection, search = '') => `/p/${encodeURIComponent(projectId)}/admin/${section}${search}`,
  /** The login page, coming back to `next` (a path of this UI) once signed in. */
  login: (next?: string | null) => {
    const back = localPath(next);
    return back === '/' || back.startsWith('/login') ? '/login' : `/login?next=${encodeURIComponent(back)}`;
  },
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
