import { describe, expect, it } from 'vitest';
import { draftOfFilter, draftOfRule, emptyDraft, filterOfDraft, patchOf, recentVariables, ruleInputOf } from './ruleForm.ts';

describe('the rule form', () => {
  it('edits a rule filter in the trace list’s fields and gives it back, keeping the keys it does not edit', () => {
    const filter = { name_contains: 'chat', spankind: ['LLM'], status: ['ERROR'], min_cost: 0.5, app_id: 'a1' };
    const draft = draftOfFilter(filter);
    expect(draft).toMatchObject({ name: 'chat', kinds: ['LLM'], statuses: ['ERROR'], minCost: '0.5', environment: '' });
    expect(filterOfDraft(draft, filter)).toEqual(filter);
    // A number that does not read as one goes as typed: the API's refusal names filter.max_cost.
    expect(filterOfDraft({ ...draft, maxCost: 'lots', name: '' }, filter)).toEqual({
      spankind: ['LLM'],
      status: ['ERROR'],
      min_cost: 0.5,
      max_cost: 'lots',
      app_id: 'a1',
    });
  });

  it('edits the span attribute filters in GraphQL’s names and stores them in REST’s', () => {
    const filter = {
      attributes: [
        { key: 'gen_ai.system', operator: 'equals', value: 'openai' },
        { key: 'tool.name', operator: 'exists' },
      ],
    };
    const draft = draftOfFilter(filter);
    expect(draft.attributes).toEqual([
      { key: 'gen_ai.system', operator: 'EQUALS', value: 'openai' },
      { key: 'tool.name', operator: 'EXISTS' },
    ]);
    expect(filterOfDraft(draft, filter)).toEqual(filter);
    expect(filterOfDraft({ ...draft, attributes: [] }, filter)).toEqual({});
    expect(recentVariables(draft, 0).attributes).toEqual(draft.attributes);
  });

  it('counts the recent traces with the trace search’s arguments', () => {
    const now = Date.parse('2026-01-02T00:00:00Z');
    expect(recentVariables({ ...draftOfFilter({ environment: 'production', spankind: ['LLM'] }) }, now)).toMatchObject({
      startedAfter: '2026-01-01T00:00:00.000Z',
      environment: 'production',
      spanKind: ['LLM'],
      nameContains: undefined,
    });
  });

  it('sends the input, or names the fields GraphQL could not carry', () => {
    const draft = { ...emptyDraft(), name: ' checks ', evaluatorConfigId: 'cfg', output: '$.output.answer', dailyCostLimitUsd: '2' };
    expect(ruleInputOf(draft)).toEqual({
      input: {
        name: 'checks',
        enabled: true,
        target: 'TRACE',
        filter: {},
        samplingRate: 1,
        delaySeconds: 0,
        evaluatorConfigId: 'cfg',
        mapping: { output: '$.output.answer' },
        scoreName: null,
        dailyCostLimitUsd: 2,
      },
      issues: new Map(),
    });
    const bad = ruleInputOf({ ...emptyDraft(), samplingRate: 'half', delaySeconds: '1.5' });
    expect([...bad.issues.keys()]).toEqual(['evaluator_config_id', 'sampling_rate', 'delay_seconds']);
  });

  it('patches only what changed, so an unchanged rule keeps its version', () => {
    const stored = {
      name: 'r',
      enabled: true,
      target: 'SPAN',
      filter: { spankind: ['LLM'], variant_id: 'v' },
      samplingRate: 0.5,
      delaySeconds: 10,
      evaluatorConfig: { id: 'cfg' },
      mapping: null,
      scoreName: 'quality',
      dailyCostLimitUsd: null,
    };
    const before = ruleInputOf(draftOfRule(stored)).input;
    expect(patchOf(before, ruleInputOf(draftOfRule(stored)).input)).toEqual({});
    expect(patchOf(before, ruleInputOf({ ...draftOfRule(stored), enabled: false, samplingRate: '0.25' }).input)).toEqual({
      enabled: false,
      samplingRate: 0.25,
    });
  });
});
