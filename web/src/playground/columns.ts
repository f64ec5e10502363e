// A playground column (docs/ui.md#playground): the prompt as edited, the revision it came from and
// its last run; what the screen and a column's view share.
import type { PlaygroundQuery } from '../__generated__/PlaygroundQuery.graphql.ts';
import type { PlaygroundRunSubscription$data } from '../__generated__/PlaygroundRunSubscription.graphql.ts';
import type { PromptMessage } from './prompt.ts';

type Loaded = PlaygroundQuery['response'];
export type VariantInfo = Extract<Loaded['nodes'][number], { __typename: 'VariantRevision' }>['variant'];
export type RevisionInfo = VariantInfo['revisions'][number];
export type RunEvent = PlaygroundRunSubscription$data['runPrompt'];

/** The most columns side by side. */
export const MAX_COLUMNS = 4;

export interface Run {
  output: string;
  running: boolean;
  error: string | null;
  end: RunEvent | null;
}

/** One column: the prompt as edited, the revision it came from, and its last run. */
export interface Column {
  key: number;
  variant: VariantInfo | null;
  base: RevisionInfo | null;
  model: string;
  messages: PromptMessage[];
  /** The other parameters (temperature, max_tokens, …), kept as the revision had them. */
  settings: Record<string, unknown>;
  run: Run | null;
  notice: string | null;
}

let nextKey = 1;

/** A key no other column has (a copy of a column gets its own). */
export function newKey(): number {
  return nextKey++;
}

export function columnOf(variant: VariantInfo | null, base: RevisionInfo | null): Column {
  const { model, messages, ...settings } = (base?.parameters ?? {}) as { model?: string; messages?: PromptMessage[] } & Record<string, unknown>;
  return {
    key: newKey(),
    variant,
    base,
    model: model ?? 'gpt-4o-mini',
    messages: messages?.map((message) => ({ role: message.role, content: message.content })) ?? [{ role: 'user', content: '' }],
    settings,
    run: null,
    notice: null,
  };
}

export function parametersOf(column: Column): Record<string, unknown> {
  return { ...column.settings, model: column.model, messages: column.messages };
}

/** Whether the column's prompt differs from the revision it came from. */
export function edited(column: Column): boolean {
  if (!column.base) return false;
  const { model, messages, ...settings } = column.base.parameters as { model?: string; messages?: PromptMessage[] } & Record<string, unknown>;
  const saved = { ...settings, model, messages: messages?.map((message) => ({ role: message.role, content: message.content })) };
  return JSON.stringify(parametersOf(column)) !== JSON.stringify(saved);
}

export function titleOf(column: Column, index: number): string {
  if (!column.variant || !column.base) return `Prompt ${index + 1}`;
  return `${column.variant.name} v${column.base.revision}${edited(column) ? ' (edited)' : ''}`;
}
