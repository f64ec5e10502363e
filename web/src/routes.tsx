// The route table (docs/ui.md#routes-and-preloading): the entry point of every screen a URL names
// (router.tsx), each in its own chunk with the queries it preloads. A domain's screens have theirs
// in the domain's `entrypoints.ts`; a screen that still starts its own queries on render is
// adapted here, with nothing to preload.
import type { AdminSection, Route, RouteOf } from './router.tsx';
import { entryPoint, noQueries, type EntryPoint } from './entrypoint.ts';
import { apiKeys, auditLog, loginPage, members, setPasswordPage } from './auth/entrypoints.ts';
import { traceList, tracePage } from './observability/entrypoints.ts';
import { prices } from './pricing/entrypoints.ts';
import { projects } from './projects/entrypoints.ts';

type Screen = Exclude<Route['screen'], 'home' | 'admin'>;

const screens: { [S in Screen]: EntryPoint<RouteOf<S>> } = {
  login: loginPage,
  'set-password': setPasswordPage,
  traces: traceList,
  trace: tracePage,
  evaluations: entryPoint(async () => {
    const { EvaluationList } = await import('./evaluations/EvaluationList.tsx');
    return ({ route }) => <EvaluationList projectId={route.projectId} />;
  }, noQueries),
  'evaluation-new': entryPoint(async () => {
    const { NewEvaluation } = await import('./evaluations/NewEvaluation.tsx');
    return ({ route }) => <NewEvaluation projectId={route.projectId} />;
  }, noQueries),
  evaluation: entryPoint(async () => {
    const { EvaluationPage } = await import('./evaluations/EvaluationPage.tsx');
    return ({ route }) => <EvaluationPage projectId={route.projectId} evaluationId={route.evaluationId} />;
  }, noQueries),
  'evaluation-compare': entryPoint(async () => {
    const { Comparison } = await import('./evaluations/Comparison.tsx');
    return ({ route }) => <Comparison projectId={route.projectId} evaluationIds={route.evaluationIds} />;
  }, noQueries),
  'human-evaluations': entryPoint(async () => {
    const { HumanEvaluationList } = await import('./human/HumanEvaluations.tsx');
    return ({ route }) => <HumanEvaluationList projectId={route.projectId} />;
  }, noQueries),
  'human-evaluation': entryPoint(async () => {
    const { HumanEvaluationPage } = await import('./human/HumanEvaluationPage.tsx');
    return ({ route }) => <HumanEvaluationPage projectId={route.projectId} evaluationId={route.evaluationId} />;
  }, noQueries),
  'human-judge': entryPoint(async () => {
    const { JudgeScreen } = await import('./human/JudgeScreen.tsx');
    return ({ route }) => <JudgeScreen projectId={route.projectId} evaluationId={route.evaluationId} judge={route.judge} at={route.at} />;
  }, noQueries),
  apps: entryPoint(async () => {
    const { AppList } = await import('./resources/Apps.tsx');
    return ({ route }) => <AppList projectId={route.projectId} />;
  }, noQueries),
  app: entryPoint(async () => {
    const { AppPage } = await import('./resources/Apps.tsx');
    return ({ route }) => <AppPage projectId={route.projectId} appId={route.appId} />;
  }, noQueries),
  'config-new': entryPoint(async () => {
    const { NewConfig } = await import('./resources/ConfigEditor.tsx');
    return ({ route }) => <NewConfig projectId={route.projectId} appId={route.appId} />;
  }, noQueries),
  config: entryPoint(async () => {
    const { EditConfig } = await import('./resources/ConfigEditor.tsx');
    return ({ route }) => <EditConfig projectId={route.projectId} appId={route.appId} configId={route.configId} />;
  }, noQueries),
  variant: entryPoint(async () => {
    const { VariantPage } = await import('./resources/VariantPage.tsx');
    return ({ route }) => <VariantPage projectId={route.projectId} appId={route.appId} variantId={route.variantId} from={route.from} to={route.to} />;
  }, noQueries),
  testsets: entryPoint(async () => {
    const { TestsetList } = await import('./resources/Testsets.tsx');
    return ({ route }) => <TestsetList projectId={route.projectId} />;
  }, noQueries),
  testset: entryPoint(async () => {
    const { TestsetPage } = await import('./resources/Testsets.tsx');
    return ({ route }) => <TestsetPage projectId={route.projectId} testsetId={route.testsetId} after={route.after} />;
  }, noQueries),
};

/** The administration sections, each its own entry point within the administration's frame. */
const adminSections: Record<AdminSection, EntryPoint<RouteOf<'admin'>>> = { keys: apiKeys, members, audit: auditLog, prices, projects };

/** The entry point of the screen `route` names (`/` is the shell's own: it opens a project). */
export function entryPointOf(route: Exclude<Route, { screen: 'home' }>): EntryPoint<Route> {
  // Each key of the tables holds the entry point of its own kind of route.
  const entry = route.screen === 'admin' ? adminSections[route.section] : screens[route.screen];
  return entry as unknown as EntryPoint<Route>;
}
