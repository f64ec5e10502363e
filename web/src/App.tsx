// The shell: the project from the URL picks the Relay environment (one per project, so no cache
// mixes two projects' data), a header, and the screen the path names (docs/ui.md#urls).
import { Suspense, useEffect, useMemo } from 'react';
import { graphql, RelayEnvironmentProvider, useLazyLoadQuery } from 'react-relay';
import type { AppMeQuery } from './__generated__/AppMeQuery.graphql.ts';
import type { AppProjectsQuery } from './__generated__/AppProjectsQuery.graphql.ts';
import { AdminScreen } from './AdminScreen.tsx';
import { landing, LoginPage } from './auth/LoginPage.tsx';
import { SetPasswordPage } from './auth/SetPasswordPage.tsx';
import { ApiError, createEnvironment } from './relay.ts';
import { Link, matchRoute, paths, Router, useRouter } from './router.tsx';
import { logOut, SessionProvider, useSession, type SignedIn } from './session.tsx';
import { Comparison } from './evaluations/Comparison.tsx';
import { EvaluationList } from './evaluations/EvaluationList.tsx';
import { EvaluationPage } from './evaluations/EvaluationPage.tsx';
import { NewEvaluation } from './evaluations/NewEvaluation.tsx';
import { HumanEvaluationPage } from './human-evaluations/HumanEvaluationPage.tsx';
import { HumanEvaluationList } from './human-evaluations/HumanEvaluations.tsx';
import { JudgeScreen } from './human-evaluations/JudgeScreen.tsx';
import { AppList, AppPage } from './apps/Apps.tsx';
import { EditConfig, NewConfig } from './evaluators/ConfigEditor.tsx';
import { TestsetList, TestsetPage } from './testsets/Testsets.tsx';
import { VariantPage } from './apps/VariantPage.tsx';
import { TraceList } from './observability/TraceList.tsx';
import { TracePage } from './observability/TracePage.tsx';
import { Empty, ErrorBoundary, Loading } from './components/states.tsx';

const projectsQuery = graphql`
  query AppProjectsQuery {
    projects {
      id
      databaseId
      name
    }
  }
`;

const meQuery = graphql`
  query AppMeQuery {
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

/** Whether the screen's user administers the project: with auth off or a key (`me` null), the API decides. */
function useIsAdmin(projectId: string): { me: AppMeQuery['response']['me']; admin: boolean } {
  const { me } = useLazyLoadQuery<AppMeQuery>(meQuery, {});
  const admin = !me || me.user.isAdmin || me.memberships.some((membership) => membership.project.databaseId === projectId && membership.role === 'ADMIN');
  return { me, admin };
}

function AdminLink({ projectId, current }: { projectId: string; current: boolean }) {
  const { admin } = useIsAdmin(projectId);
  return admin ? (
    <Link to={paths.admin(projectId, 'keys')} aria-current={current ? 'page' : undefined}>
      Admin
    </Link>
  ) : null;
}

/** The signed-in user and "Sign out"; nothing with auth off. */
function Account({ projectId }: { projectId: string }) {
  const { me } = useIsAdmin(projectId);
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
function Home() {
  const { navigate } = useRouter();
  const { projects } = useLazyLoadQuery<AppProjectsQuery>(projectsQuery, {});
  const project = projects.find((candidate) => candidate.name === 'default') ?? projects[0];
  useEffect(() => {
    if (project) navigate(paths.traces(project.databaseId), { replace: true });
  }, [project, navigate]);
  return project ? <Loading label="Opening the project…" /> : <Empty title="No project yet">Create one with POST /projects.</Empty>;
}

function HomeOrChoice() {
  return (
    <ErrorBoundary fallback={(error) => (namesNoProject(error) ? <ChooseProject /> : null)}>
      <Home />
    </ErrorBoundary>
  );
}

function ProjectPicker({ projectId }: { projectId: string }) {
  const { navigate } = useRouter();
  const { projects } = useLazyLoadQuery<AppProjectsQuery>(projectsQuery, {});
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

function Screens() {
  const { location } = useRouter();
  const route = matchRoute(location.pathname, location.search);
  const projectId = route && 'projectId' in route ? route.projectId : null;
  const { epoch } = useSession();
  // A new environment per project and per sign-in: no cache outlives the user it was read for.
  const environment = useMemo(() => createEnvironment(projectId), [projectId, epoch]);
  if (route?.screen === 'login' || route?.screen === 'set-password') {
    return (
      <main id="main" className="auth-main">
        <p className="brand">Assay</p>
        {route.screen === 'login' ? <LoginPage /> : <SetPasswordPage />}
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
        {projectId && (
          <nav aria-label="Sections">
            <Link to={paths.traces(projectId)} aria-current={route?.screen === 'traces' ? 'page' : undefined}>
              Traces
            </Link>
            <Link to={paths.evaluations(projectId)} aria-current={route?.screen.startsWith('evaluation') ? 'page' : undefined}>
              Evaluations
            </Link>
            <Link to={paths.humanEvaluations(projectId)} aria-current={route?.screen.startsWith('human') ? 'page' : undefined}>
              Human evaluation
            </Link>
            <Link
              to={paths.apps(projectId)}
              aria-current={route && ['apps', 'app', 'config', 'config-new', 'variant'].includes(route.screen) ? 'page' : undefined}
            >
              Apps
            </Link>
            <Link to={paths.testsets(projectId)} aria-current={route?.screen.startsWith('testset') ? 'page' : undefined}>
              Test sets
            </Link>
            <Suspense fallback={null}>
              <ErrorBoundary>
                <AdminLink projectId={projectId} current={route?.screen === 'admin'} />
              </ErrorBoundary>
            </Suspense>
          </nav>
        )}
        <div className="top-end">
          {projectId && (
            <Suspense fallback={null}>
              <ErrorBoundary>
                <ProjectPicker projectId={projectId} />
                <Account projectId={projectId} />
              </ErrorBoundary>
            </Suspense>
          )}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <ErrorBoundary resetKey={location.pathname}>
          <Suspense fallback={<Loading label="Loading…" />}>
            {route === null && (
              <Empty title="No such page">
                <Link to="/">Go to the start page</Link>
              </Empty>
            )}
            {route?.screen === 'home' && <HomeOrChoice />}
            {route?.screen === 'traces' && <TraceList projectId={route.projectId} />}
            {route?.screen === 'trace' && <TracePage projectId={route.projectId} traceId={route.traceId} spanId={route.spanId} />}
            {route?.screen === 'admin' && <AdminScreen projectId={route.projectId} section={route.section} />}
            {route?.screen === 'evaluations' && <EvaluationList projectId={route.projectId} />}
            {route?.screen === 'evaluation-new' && <NewEvaluation projectId={route.projectId} />}
            {route?.screen === 'evaluation' && <EvaluationPage key={route.evaluationId} projectId={route.projectId} evaluationId={route.evaluationId} />}
            {route?.screen === 'evaluation-compare' && <Comparison projectId={route.projectId} evaluationIds={route.evaluationIds} />}
            {route?.screen === 'human-evaluations' && <HumanEvaluationList projectId={route.projectId} />}
            {route?.screen === 'human-evaluation' && (
              <HumanEvaluationPage key={route.evaluationId} projectId={route.projectId} evaluationId={route.evaluationId} />
            )}
            {route?.screen === 'human-judge' && <JudgeScreen projectId={route.projectId} evaluationId={route.evaluationId} judge={route.judge} at={route.at} />}
            {route?.screen === 'apps' && <AppList projectId={route.projectId} />}
            {route?.screen === 'app' && <AppPage projectId={route.projectId} appId={route.appId} />}
            {route?.screen === 'config-new' && <NewConfig projectId={route.projectId} appId={route.appId} />}
            {route?.screen === 'config' && <EditConfig key={route.configId} projectId={route.projectId} appId={route.appId} configId={route.configId} />}
            {route?.screen === 'variant' && (
              <VariantPage key={route.variantId} projectId={route.projectId} appId={route.appId} variantId={route.variantId} from={route.from} to={route.to} />
            )}
            {route?.screen === 'testsets' && <TestsetList projectId={route.projectId} />}
            {route?.screen === 'testset' && <TestsetPage projectId={route.projectId} testsetId={route.testsetId} after={route.after} />}
          </Suspense>
        </ErrorBoundary>
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
