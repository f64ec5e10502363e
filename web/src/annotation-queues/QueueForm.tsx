// A queue created or changed (docs/annotation-queues.md#the-model): its name and instructions, what
// its items are (fixed once made), the score configs a reviewer fills in, reviewers per item, the
// lock, the assignees (the members, which only an admin may list) and the online rules that feed it
// (docs/annotation-queues.md#online-rules): those scoring the queue's target type.
import { Component, Suspense, useState, type FormEvent, type ReactNode } from 'react';
import { graphql, useLazyLoadQuery } from 'react-relay';
import type { QueueFormCreateMutation } from '../__generated__/QueueFormCreateMutation.graphql.ts';
import type { QueueFormMembersQuery } from '../__generated__/QueueFormMembersQuery.graphql.ts';
import type { QueueFormQuery } from '../__generated__/QueueFormQuery.graphql.ts';
import type { QueueFormUpdateMutation } from '../__generated__/QueueFormUpdateMutation.graphql.ts';
import { useCommit } from '../components/actions.tsx';
import { ChecksField, FieldIssues, FormIssues, invalidProps, useFormIssues } from '../components/forms.tsx';
import { useScoreConfigs } from '../scores/traceScores.ts';
import type { Queue } from './Queues.tsx';

const configsQuery = graphql`
  query QueueFormQuery {
    ...ScoreConfigChoices_query
    evaluationRules(first: 200) {
      edges {
        node {
          id
          name
          target
        }
      }
    }
  }
`;

const membersQuery = graphql`
  query QueueFormMembersQuery {
    members {
      user {
        databaseId
        email
      }
    }
  }
`;

const createMutation = graphql`
  mutation QueueFormCreateMutation($input: AnnotationQueueInput!) {
    createAnnotationQueue(input: $input) {
      id
    }
  }
`;

const updateMutation = graphql`
  mutation QueueFormUpdateMutation($id: ID!, $input: AnnotationQueuePatchInput!) {
    updateAnnotationQueue(id: $id, input: $input) {
      id
    }
  }
`;

const targetTypes = [
  { value: 'TRACE', label: 'Traces' },
  { value: 'SPAN', label: 'Spans' },
  { value: 'SESSION', label: 'Sessions' },
  { value: 'EVALUATION_SCENARIO', label: 'Evaluation results' },
] as const;
type TargetType = (typeof targetTypes)[number]['value'];

const ruleConditions = [
  { value: 'ALL', label: 'Every score' },
  { value: 'FAILED', label: 'Failed scores only (false, or a number below 0.5)' },
] as const;
type RuleCondition = (typeof ruleConditions)[number]['value'];

const fields = ['name', 'instructions', 'target_type', 'score_config_ids', 'annotators_per_item', 'lock_seconds', 'assignees', 'rule_ids', 'rule_condition'];

/** The members as checkboxes; a caller who may not list them (not an admin) keeps the assignees as they are. */
class MembersBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  render() {
    return this.state.failed ? <p className="muted small">Only an admin sees the members to assign; the assignees stay as they are.</p> : this.props.children;
  }
}

function Assignees({ chosen, onChange, issues }: { chosen: string[]; onChange: (next: string[]) => void; issues: ReadonlyMap<string, string[]> }) {
  const { members } = useLazyLoadQuery<QueueFormMembersQuery>(membersQuery, {}, { fetchPolicy: 'store-or-network' });
  return (
    <ChecksField
      legend="Assignees (none: every member who may write)"
      options={members.map(({ user }) => ({ value: user.databaseId, label: user.email }))}
      chosen={chosen}
      onChange={onChange}
      issues={issues}
      field="assignees"
    />
  );
}

export function QueueForm({ queue, onDone }: { queue?: Queue; onDone: () => void }) {
  const data = useLazyLoadQuery<QueueFormQuery>(configsQuery, {}, { fetchPolicy: 'store-or-network' });
  const configs = useScoreConfigs(data);
  const [name, setName] = useState(queue?.name ?? '');
  const [instructions, setInstructions] = useState(queue?.instructions ?? '');
  const [targetType, setTargetType] = useState<TargetType>((queue?.targetType as TargetType) ?? 'TRACE');
  const [configIds, setConfigIds] = useState<string[]>(queue?.scoreConfigs.map((config) => config.id) ?? []);
  const [perItem, setPerItem] = useState(String(queue?.annotatorsPerItem ?? 1));
  const [lock, setLock] = useState(String(queue?.lockSeconds ?? 300));
  const [assignees, setAssignees] = useState<string[]>([...(queue?.assigneeIds ?? [])]);
  const [assigneesTouched, setAssigneesTouched] = useState(false);
  const [ruleIds, setRuleIds] = useState<string[]>(queue?.rules.map((rule) => rule.id) ?? []);
  const [ruleCondition, setRuleCondition] = useState<RuleCondition>((queue?.ruleCondition as RuleCondition) ?? 'ALL');
  // Only rules scoring the queue's target type may feed it; the others are not offered.
  const rules = data.evaluationRules.edges.map((edge) => edge.node).filter((rule) => rule.target === targetType);
  const { issues, failure, onError, reset } = useFormIssues();
  const [create, creating] = useCommit<QueueFormCreateMutation>(createMutation);
  const [update, updating] = useCommit<QueueFormUpdateMutation>(updateMutation);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    reset();
    const common = {
      name,
      instructions: instructions.trim() || null,
      scoreConfigIds: configIds,
      annotatorsPerItem: Number(perItem),
      lockSeconds: Number(lock),
      ruleIds,
      ruleCondition,
    };
    try {
      if (queue) await update({ id: queue.id, input: { ...common, ...(assigneesTouched && { assigneeIds: assignees }) } });
      else {
        await create({ input: { ...common, targetType, assigneeIds: assignees } });
        setName('');
        setInstructions('');
      }
      onDone();
    } catch (error) {
      onError(error);
    }
  };

  return (
    <form className="form queue-form" aria-label={queue ? `Edit ${queue.name}` : 'New annotation queue'} onSubmit={(event) => void submit(event)} noValidate>
      <label>
        Name
        <input value={name} onChange={(event) => setName(event.target.value)} {...invalidProps(issues, 'name')} />
        <FieldIssues issues={issues} field="name" />
      </label>
      <label>
        Instructions for reviewers
        <textarea rows={2} value={instructions} onChange={(event) => setInstructions(event.target.value)} {...invalidProps(issues, 'instructions')} />
        <FieldIssues issues={issues} field="instructions" />
      </label>
      {!queue && (
        <label>
          Items are
          <select
            value={targetType}
            onChange={(event) => {
              setTargetType(event.target.value as TargetType);
              setRuleIds([]);
            }}
          >
            {targetTypes.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
      )}
      <ChecksField
        legend="Score configs, in the order reviewers fill them in"
        options={configs.map((config) => ({ value: config.id, label: `${config.name} (${config.dataType.toLowerCase()})` }))}
        chosen={configIds}
        onChange={setConfigIds}
        empty="No score config yet: an admin creates them under Admin, Score configs."
        issues={issues}
        field="score_config_ids"
      />
      <label>
        Reviewers per item
        <input inputMode="numeric" value={perItem} onChange={(event) => setPerItem(event.target.value)} {...invalidProps(issues, 'annotators_per_item')} />
        <FieldIssues issues={issues} field="annotators_per_item" />
      </label>
      <label>
        Lock, in seconds (how long an item stays with its reviewer)
        <input inputMode="numeric" value={lock} onChange={(event) => setLock(event.target.value)} {...invalidProps(issues, 'lock_seconds')} />
        <FieldIssues issues={issues} field="lock_seconds" />
      </label>
      {targetType !== 'EVALUATION_SCENARIO' && (
        <>
          <ChecksField
            legend="Online rules that add the targets they score"
            options={rules.map((rule) => ({ value: rule.id, label: rule.name }))}
            chosen={ruleIds}
            onChange={setRuleIds}
            empty="No online evaluation rule scores this kind of target."
            issues={issues}
            field="rule_ids"
          />
          <label>
            Which of their scores add the target
            <select value={ruleCondition} onChange={(event) => setRuleCondition(event.target.value as RuleCondition)}>
              {ruleConditions.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          </label>
        </>
      )}
      <MembersBoundary>
        <Suspense fallback={<p className="muted small">Loading the members…</p>}>
          <Assignees
            chosen={assignees}
            onChange={(next) => {
              setAssignees(next);
              setAssigneesTouched(true);
            }}
            issues={issues}
          />
        </Suspense>
      </MembersBoundary>
      <FormIssues issues={issues} fields={fields} failure={failure} />
      <div className="form-actions">
        <button type="submit" disabled={creating || updating}>
          {queue ? 'Save the queue' : 'Create the queue'}
        </button>
      </div>
    </form>
  );
}
