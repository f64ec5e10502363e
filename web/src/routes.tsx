// The route table (docs/ui.md#routes-and-preloading): the entry point of every screen a URL names
// (router.tsx), each in its own chunk with the queries it preloads. A domain's screens have theirs
// in the domain's `entrypoints.ts`.
import type { AdminSection, Route, RouteOf } from './router.tsx';
import { appList, appPage, variantPage } from './apps/entrypoints.ts';
import type { EntryPoint } from './entrypoint.ts';
import { apiKeys, auditLog, loginPage, members, setPasswordPage } from './auth/entrypoints.ts';
import { comparison, evaluationList, evaluationPage, newEvaluation } from './evaluations/entrypoints.ts';
import { editConfig, newConfig } from './evaluators/entrypoints.ts';
import { queueList, queueReview } from './annotation-queues/entrypoints.ts';
import { humanEvaluationList, humanEvaluationPage, judgeScreen } from './human-evaluations/entrypoints.ts';
import { sessionList, sessionPage, traceList, tracePage } from './observability/entrypoints.ts';
import { editRule, newRule, ruleList, rulePage } from './online-evaluation/entrypoints.ts';
import { playground } from './playground/entrypoints.ts';
import { prices } from './pricing/entrypoints.ts';
import { projects } from './projects/entrypoints.ts';
import { scoreConfigs } from './scores/entrypoints.ts';
import { testsetList, testsetPage } from './testsets/entrypoints.ts';

type Screen = Exclude<Route['screen'], 'home' | 'admin'>;

const screens: { [S in Screen]: EntryPoint<RouteOf<S>> } = {
  login: loginPage,
  'set-password': setPasswordPage,
  traces: traceList,
  trace: tracePage,
  sessions: sessionList,
  session: sessionPage,
  evaluations: evaluationList,
  'evaluation-new': newEvaluation,
  evaluation: evaluationPage,
  'evaluation-compare': comparison,
  'human-evaluations': humanEvaluationList,
  'human-evaluation': humanEvaluationPage,
  'human-judge': judgeScreen,
  apps: appList,
  app: appPage,
  'config-new': newConfig,
  config: editConfig,
  variant: variantPage,
  testsets: testsetList,
  testset: testsetPage,
  rules: ruleList,
  'rule-new': newRule,
  rule: rulePage,
  'rule-edit': editRule,
  playground,
  queues: queueList,
  'queue-review': queueReview,
};

/** The administration sections, each its own entry point within the administration's frame. */
const adminSections: Record<AdminSection, EntryPoint<RouteOf<'admin'>>> = { keys: apiKeys, members, audit: auditLog, prices, projects, scores: scoreConfigs };

/** The entry point of the screen `route` names (`/` is the shell's own: it opens a project). */
export function entryPointOf(route: Exclude<Route, { screen: 'home' }>): EntryPoint<Route> {
  // Each key of the tables holds the entry point of its own kind of route.
  const entry = route.screen === 'admin' ? adminSections[route.section] : screens[route.screen];
  return entry as unknown as EntryPoint<Route>;
}
