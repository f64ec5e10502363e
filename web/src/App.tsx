// The shell: the project from the URL picks the Relay environment (one per project, so no cache
// mixes two projects' data), a header, and the screen the path names, whose entry point
// (routes.tsx) loads its code and starts its queries as the URL changes (docs/ui.md#routes-and-preloading).
import { Suspense, useEffect, useMemo, useState } from 'react';
import { graphql, loadQuery, RelayEnvironmentProvider, useFragment, usePreloadedQuery, type PreloadedQuery } from 'react-relay';
import type { IEnvironment } from 'relay-runtime';
import type { AppAccount_query$key } from './__generated__/AppAccount_query.graphql.ts';
import type { AppMeQuery } from './__generated__/AppMeQuery.graphql.ts';
import type { AppProjects_query$key } from './__generated__/AppProjects_query.graphql.ts';
import type { AppProjectsQuery } from './__generated__/AppProjectsQuery.graphql.ts';
import { AdminLayout } from './components/AdminLayout.tsx';
import { Empty, ErrorBoundary, Loading } from './components/states.tsx';
import { useLoadedQueries } from './entrypoint.ts';
import { ApiError, createEnvironment } from './relay.ts';
import { Link, matchRoute, paths, Router, useRouter, type Route } from './router.tsx';
import { entryPointOf } from './routes.tsx';
import { landing, logOut, SessionProvider, useSession, type SignedIn } from './session.tsx';

const projectsQuery = graphql`
  query AppProjectsQuery {
    ...AppProjects_query
  }
`;

const meQuery = graphql`
  query AppMeQuery {
    ...AppAccount_query
  }
`;

const projectsFragment = graphql`
  fragment AppProjects_query on Query {
    projects {
      id
      databaseId
      name
    }
  }
`;

const accountFragment = graphql`
  fragment AppAccount_query on Query {
    me {
      user {
        email
        isAdmin
      }
      memberships {
        role
        project {
          databaseId
        }
      }
    }
  }
`;

/**
 * The shell's queries, started with the project's environment: where a project is on screen, the
 * header's `projects` and `me`; at `/`, `projects` alone (to open one); elsewhere none.
 */
interface ShellQueries {
  [name: string]: PreloadedQuery<AppProjectsQuery> | PreloadedQuery<AppMeQuery> | null;
  projects: PreloadedQuery<AppProjectsQuery> | null;
  me: PreloadedQuery<AppMeQuery> | null;
}

function loadShell(environment: IEnvironment, projectId: string | null, home: boolean): ShellQueries {
  return {
    projects: projectId || home ? loadQuery<AppProjectsQuery>(environment, projectsQuery, {}) : null,
    me: projectId ? loadQuery<AppMeQuery>(environment, meQuery, {}) : null,
  };
}

function useProjects(query: PreloadedQuery<AppProjectsQuery>) {
  return useFragment<AppProjects_query$key>(projectsFragment, usePreloadedQuery<AppProjectsQuery>(projectsQuery, query)).projects;
}

/** Whether the screen's user administers the project: with auth off or a key (`me` null), the API decides. */
function useIsAdmin(query: PreloadedQuery<AppMeQuery>, projectId: string) {
  const { me } = useFragment<AppAccount_query$key>(accountFragment, usePreloadedQuery<AppMeQuery>(meQuery, query));
  const admin = !me || me.user.isAdmin || me.memberships.some((membership) => membership.project.databaseId === projectId && membership.role === 'ADMIN');
  return { me, admin };
}

function AdminLink({ query, projectId, current }: { query: PreloadedQuery<AppMeQuery>; projectId: string; current: boolean }) {
  const { admin } = useIsAdmin(query, projectId);
  return admin ? (
    <Link to={paths.admin(projectId, 'keys')} aria-current={current ? 'page' : undefined}>
      Admin
    </Link>
  ) : null;
}

/** The signed-in user and "Sign out"; nothing with auth off. */
function Account({ query, projectId }: { query: PreloadedQuery<AppMeQuery>; projectId: string }) {
  const { me } = useIsAdmin(query, projectId);
  const { navigate } = useRouter();
  const { changed } = useSession();
  if (!me) return null;
  const signOut = async () => {
    await logOut();
    changed();
    navigate('/login', { replace: true });
  };
  return (
    <span className="account">
      <span className="muted small">{me.user.email}</span>
      <button type="button" className="secondary" onClick={() => void signOut()}>
        Sign out
      </button>
    </span>
  );
}

/** A user of several projects asked for `/` names none: their memberships (GET /auth/me) pick one. */
function ChooseProject() {
  const { navigate } = useRouter();
  useEffect(() => {
    void fetch('/auth/me', { credentials: 'same-origin' })
      .then((response) => (response.ok ? (response.json() as Promise<SignedIn>) : null))
      .then((signedIn) => navigate(signedIn ? landing(signedIn) : paths.login(), { replace: true }));
  }, [navigate]);
  return <Loading label="Opening your project…" />;
}

const namesNoProject = (error: unknown) => error instanceof ApiError && error.detail.some((issue) => issue.loc.includes('x-assay-project'));

/** `/`: the default project's traces (the first project when none is called "default"). */
function Home({ query }: { query: PreloadedQuery<AppProjectsQuery> }) {
  const { navigate } = useRouter();
  const projects = useProjects(query);
  const project = projects.find((candidate) => candidate.name === 'default') ?? projects[0];
  useEffect(() => {
    if (project) navigate(paths.traces(project.databaseId), { replace: true });
  }, [project, navigate]);
  return project ? <Loading label="Opening the project…" /> : <Empty title="No project yet">Create one with POST /projects.</Empty>;
}

function HomeOrChoice({ query }: { query: PreloadedQuery<AppProjectsQuery> }) {
  return (
    <ErrorBoundary fallback={(error) => (namesNoProject(error) ? <ChooseProject /> : null)}>
      <Home query={query} />
    </ErrorBoundary>
  );
}

function ProjectPicker({ query, projectId }: { query: PreloadedQuery<AppProjectsQuery>; projectId: string }) {
  const { navigate } = useRouter();
  const projects = useProjects(query);
  if (projects.length < 2) return <span className="project-name">{projects[0]?.name ?? ''}</span>;
  return (
    <label className="project-picker">
      <span className="visually-hidden">Project</span>
      <select value={projectId} onChange={(event) => navigate(paths.traces(event.target.value))}>
        {projects.map((project) => (
          <option key={project.id} value={project.databaseId}>
            {project.name}
          </option>
        ))}
      </select>
    </label>
  );
}

function Sections({ projectId, route, me }: { projectId: string; route: Route | null; me: PreloadedQuery<AppMeQuery> }) {
  return (
    <nav aria-label="Sections">
      <Link to={paths.traces(projectId)} aria-current={route?.screen === 'traces' ? 'page' : undefined}>
        Traces
      </Link>
      <Link to={paths.sessions(projectId)} aria-current={route?.screen === 'sessions' || route?.screen === 'session' ? 'page' : undefined}>
        Sessions
      </Link>
      <Link to={paths.evaluations(projectId)} aria-current={route?.screen.startsWith('evaluation') ? 'page' : undefined}>
        Evaluations
      </Link>
      <Link to={paths.humanEvaluations(projectId)} aria-current={route?.screen.startsWith('human') ? 'page' : undefined}>
        Human evaluation
      </Link>
      <Link to={paths.rules(projectId)} aria-current={route?.screen.startsWith('rule') ? 'page' : undefined}>
        Online evaluation
      </Link>
      <Link to={paths.queues(projectId)} aria-current={route?.screen.startsWith('queue') ? 'page' : undefined}>
        Annotation queues
      </Link>
      <Link to={paths.apps(projectId)} aria-current={route && ['apps', 'app', 'config', 'config-new', 'variant'].includes(route.screen) ? 'page' : undefined}>
        Apps
      </Link>
      <Link to={paths.testsets(projectId)} aria-current={route?.screen.startsWith('testset') ? 'page' : undefined}>
        Test sets
      </Link>
      <Link to={paths.playground(projectId)} aria-current={route?.screen === 'playground' ? 'page' : undefined}>
        Playground
      </Link>
      <Suspense fallback={null}>
        <ErrorBoundary>
          <AdminLink query={me} projectId={projectId} current={route?.screen === 'admin'} />
        </ErrorBoundary>
      </Suspense>
    </nav>
  );
}

/**
 * The screen `route` names: its entry point's code and queries, started together when the URL (or
 * the environment) changes, and again at "Try again" (a failed query stays failed).
 */
function RouteScreen({ route, environment }: { route: Exclude<Route, { screen: 'home' }>; environment: IEnvironment }) {
  const { location } = useRouter();
  const [attempt, setAttempt] = useState(0);
  const entry = entryPointOf(route);
  const queries = useLoadedQueries(() => entry.load(environment, route, location.search), [environment, location.pathname, location.search, attempt]);
  const Screen = entry.screen;
  return (
    <ErrorBoundary resetKey={location.pathname} onRetry={() => setAttempt((count) => count + 1)}>
      <Suspense fallback={<Loading label="Loading…" />}>
        <Screen key={location.pathname} route={route} queries={queries} />
      </Suspense>
    </ErrorBoundary>
  );
}

function Screens() {
  const { location } = useRouter();
  const route = matchRoute(location.pathname, location.search);
  const projectId = route && 'projectId' in route ? route.projectId : null;
  const { epoch } = useSession();
  // A new environment per project and per sign-in: no cache outlives the user it was read for.
  const environment = useMemo(() => createEnvironment(projectId), [projectId, epoch]);
  const home = route?.screen === 'home';
  const shell = useLoadedQueries(() => loadShell(environment, projectId, home), [environment, home]);
  if (route?.screen === 'login' || route?.screen === 'set-password') {
    return (
      <main id="main" className="auth-main">
        <p className="brand">Assay</p>
        <RouteScreen route={route} environment={environment} />
      </main>
    );
  }
  return (
    <RelayEnvironmentProvider environment={environment}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link to="/" className="brand">
          Assay
        </Link>
        {projectId && shell.me && <Sections projectId={projectId} route={route} me={shell.me} />}
        <div className="top-end">
          {projectId && shell.me && shell.projects && (
            <Suspense fallback={null}>
              <ErrorBoundary>
                <ProjectPicker query={shell.projects} projectId={projectId} />
                <Account query={shell.me} projectId={projectId} />
              </ErrorBoundary>
            </Suspense>
          )}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {route === null && (
          <Empty title="No such page">
            <Link to="/">Go to the start page</Link>
          </Empty>
        )}
        {route?.screen === 'home' && shell.projects && (
          <Suspense fallback={<Loading label="Loading…" />}>
            <HomeOrChoice query={shell.projects} />
          </Suspense>
        )}
        {route?.screen === 'admin' && (
          <AdminLayout projectId={route.projectId} section={route.section}>
            <RouteScreen route={route} environment={environment} />
          </AdminLayout>
        )}
        {route && route.screen !== 'home' && route.screen !== 'admin' && <RouteScreen route={route} environment={environment} />}
      </main>
    </RelayEnvironmentProvider>
  );
}

export function App() {
  return (
    <Router>
      <SessionProvider>
        <Screens />
      </SessionProvider>
    </Router>
  );
}
