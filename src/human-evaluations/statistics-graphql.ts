// GraphQL types of a human evaluation's statistics (statistics.ts): win rates with 95% intervals,
// position bias and agreement between judges, which REST does not have (docs/human-evaluations.md).
import { builder } from '../shared/graphql/builder.js';
import { globalId } from '../shared/graphql/ids.js';
import { ConfidenceInterval } from '../shared/graphql/interval.js';
import type { Agreement, HumanStatistics, JudgePair, PositionBias, VariantStatistics } from './statistics.js';

const VariantStats = builder.objectRef<VariantStatistics>('HumanVariantStatistics').implement({
  description: "One variant's verdicts in a human evaluation.",
  fields: (t) => ({
    variantId: t.id({ description: 'Global id of the variant.', resolve: (s) => globalId('Variant', s.variant_id) }),
    variantName: t.exposeString('variant_name', { description: 'Its name at creation.' }),
    wins: t.exposeInt('wins', { description: 'A/B: judgements that preferred this variant.' }),
    losses: t.exposeInt('losses', { description: 'A/B: judgements that preferred the other variant.' }),
    ties: t.exposeInt('ties', { description: 'A/B: judgements "1" (both good) or "0" (both bad).' }),
    winRate: t.exposeFloat('win_rate', { nullable: true, description: 'Wins / (wins + losses), ties left out; null without a decisive judgement.' }),
    winRateInterval: t.field({
      type: ConfidenceInterval,
      nullable: true,
      description: "Wilson's 95% interval of the win rate.",
      resolve: (s) => s.win_rate_interval,
    }),
    scores: t.exposeInt('scores', { description: 'Single model: scores given.' }),
    meanScore: t.exposeFloat('mean_score', { nullable: true, description: 'Single model: the mean score (0–100); null without scores.' }),
    scoreStddev: t.exposeFloat('score_stddev', {
      nullable: true,
      description: 'Single model: sample standard deviation of the scores; null with fewer than two.',
    }),
    scoreInterval: t.field({
      type: ConfidenceInterval,
      nullable: true,
      description: "Student's t 95% interval of the mean score.",
      resolve: (s) => s.score_interval,
    }),
  }),
});

const PositionBiasRef = builder.objectRef<PositionBias>('HumanPositionBias').implement({
  description: 'How often the output shown on the left won an A/B judgement (0.5 when the side does not matter).',
  fields: (t) => ({
    decisive: t.exposeInt('decisive', { description: 'Judgements that preferred one output.' }),
    leftWins: t.exposeInt('left_wins', { description: 'Of those, the ones that preferred the output shown on the left.' }),
    rightWins: t.exposeInt('right_wins', { description: 'Of those, the ones that preferred the output shown on the right.' }),
    leftRate: t.exposeFloat('left_rate', { nullable: true, description: 'Share of the decisive judgements won by the left output; null without one.' }),
    leftRateInterval: t.field({
      type: ConfidenceInterval,
      nullable: true,
      description: "Wilson's 95% interval of leftRate; null without a decisive judgement.",
      resolve: (b) => b.left_rate_interval,
    }),
    pValue: t.exposeFloat('p_value', { nullable: true, description: 'Two-sided exact binomial test of leftRate = 0.5.' }),
  }),
});

const JudgePairRef = builder.objectRef<JudgePair>('HumanJudgePair').implement({
  description: 'How two judges agree on the scenarios both judged.',
  fields: (t) => ({
    judgeA: t.exposeString('judge_a', { description: 'The first judge, by name (the pair is in name order).' }),
    judgeB: t.exposeString('judge_b', { description: 'The second judge, by name.' }),
    scenarios: t.exposeInt('scenarios', { description: 'Scenarios both judged.' }),
    observedAgreement: t.exposeFloat('observed_agreement', { description: 'Share of those scenarios where both gave the same verdict.' }),
    cohenKappa: t.exposeFloat('cohen_kappa', {
      nullable: true,
      description: "Cohen's kappa of their verdicts; null when chance agreement is 1 (both always gave one same verdict).",
    }),
  }),
});

/** Also annotation queues' agreement per score name (items as scenarios, reviewers as judges). */
export const AgreementRef = builder.objectRef<Agreement>('HumanAgreement').implement({
  description: "Agreement between judges on the scenarios at least two judged: Fleiss' kappa overall, Cohen's per pair.",
  fields: (t) => ({
    scenarios: t.exposeInt('scenarios', { description: 'Scenarios with verdicts from at least two judges.' }),
    judgements: t.exposeInt('judgements', { description: 'Verdicts on those scenarios.' }),
    observedAgreement: t.exposeFloat('observed_agreement', {
      nullable: true,
      description: "Mean share of agreeing judge pairs per scenario (Fleiss' P̄); null without such scenarios.",
    }),
    expectedAgreement: t.exposeFloat('expected_agreement', {
      nullable: true,
      description: "Agreement expected by chance from the verdicts' overall shares (Fleiss' P̄e); null without such scenarios.",
    }),
    fleissKappa: t.exposeFloat('fleiss_kappa', {
      nullable: true,
      description: "Fleiss' kappa, allowing a different number of judges per scenario; null when undefined (no such scenarios, or one verdict throughout).",
    }),
    pairs: t.field({ type: [JudgePairRef], description: 'Every pair of judges who judged a scenario in common.', resolve: (a) => a.pairs }),
  }),
});

export const StatisticsRef = builder.objectRef<HumanStatistics>('HumanEvaluationStatistics').implement({
  description: 'Every judgement counts once (one judge, one scenario); a scenario no one judged counts as one row without a verdict.',
  fields: (t) => ({
    scenarios: t.exposeInt('scenarios', { description: 'Scenarios in the evaluation.' }),
    judgedScenarios: t.exposeInt('judged_scenarios', { description: 'Scenarios with at least one vote (A/B) or score (single model).' }),
    judgements: t.exposeInt('judgements', { description: 'Judgements with a vote (A/B) or a score (single model).' }),
    judges: t.exposeStringList('judges', { description: 'Everyone who judged, in name order.' }),
    positiveVotes: t.exposeInt('positive_votes', { description: 'A/B: "1" votes (both good).' }),
    flagVotes: t.exposeInt('flag_votes', { description: 'A/B: "0" votes (both bad).' }),
    variants: t.field({ type: [VariantStats], description: "One per variant, in the evaluation's order.", resolve: (s) => s.variants }),
    positionBias: t.field({
      type: PositionBiasRef,
      nullable: true,
      description: 'A/B: whether the side an output is shown on sways judges; null for a single model test.',
      resolve: (s) => s.position_bias,
    }),
    agreement: t.field({ type: AgreementRef, description: 'How far the judges agree with each other.', resolve: (s) => s.agreement }),
  }),
});
