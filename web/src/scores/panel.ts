// What the score panel computes without the API (docs/ui.md#scores): the score a config's row
// shows and changes, the text of a score, and the score a choice writes.

/** A score config as the panel builds a row from it. */
export interface PanelConfig {
  readonly id: string;
  readonly name: string;
  /** NUMERIC, BOOLEAN or CATEGORICAL. */
  readonly dataType: string;
  readonly minValue: number | null | undefined;
  readonly maxValue: number | null | undefined;
  readonly categories: readonly { readonly label: string; readonly value: number }[];
  readonly description: string | null | undefined;
}

/** A score as the panel lists it. */
export interface PanelScore {
  readonly id: string;
  readonly name: string;
  /** NUMERIC, BOOLEAN, CATEGORICAL or TEXT. */
  readonly dataType: string;
  readonly value: number | null | undefined;
  readonly stringValue: string | null | undefined;
  readonly comment: string | null | undefined;
  /** api, annotation, evaluation or online. */
  readonly source: string;
  /** An online score's `{rule_id, judge_trace_id…}`. */
  readonly metadata?: unknown;
  readonly configId: string | null | undefined;
}

/** A score to write: `id` is the score it changes (the same id updates), null for a new one. */
export interface ScoreWrite {
  id: string | null;
  configId: string | null;
  name: string;
  dataType: string;
  value: number | null;
  stringValue: string | null;
  comment: string | null;
}

/** The annotation a config's row shows and changes: the last of its scores given in the UI. */
export function annotationOf(scores: readonly PanelScore[], config: PanelConfig): PanelScore | null {
  return scores.findLast((score) => score.configId === config.id && score.source === 'annotation') ?? null;
}

/** The scores no row shows (the app's, evaluators', text scores), listed below the rows. */
export function otherScores(scores: readonly PanelScore[], configs: readonly PanelConfig[]): PanelScore[] {
  const shown = new Set(configs.flatMap((config) => annotationOf(scores, config)?.id ?? []));
  return scores.filter((score) => !shown.has(score.id));
}

/** A score's value in words: a category's label, True/False, the number, the text. */
export function scoreValueText(score: Pick<PanelScore, 'dataType' | 'value' | 'stringValue'>): string {
  if (score.dataType === 'NUMERIC') return score.value == null ? '–' : String(Number(score.value.toFixed(4)));
  return score.stringValue ?? (score.value == null ? '–' : String(score.value));
}

/** The score that choosing `option` of a BOOLEAN or CATEGORICAL config writes. */
export function optionWrite(config: PanelConfig, option: { label: string; value: number }, existing: PanelScore | null, comment: string): ScoreWrite {
  return { ...base(config, existing, comment), value: option.value, stringValue: option.label };
}

/**
 * The score a number typed for a NUMERIC config writes, or why it is not a number. Its range is the
 * API's to judge (the refusal names the field), as every form here leaves it.
 */
export function numberWrite(config: PanelConfig, text: string, existing: PanelScore | null, comment: string): ScoreWrite | string {
  const value = text.trim() === '' ? Number.NaN : Number(text);
  if (!Number.isFinite(value)) return 'Type a number';
  return { ...base(config, existing, comment), value, stringValue: null };
}

/** The same score with a new comment (an empty one removes it). */
export function commentWrite(config: PanelConfig, existing: PanelScore, comment: string): ScoreWrite {
  return { ...base(config, existing, comment), value: existing.value ?? null, stringValue: existing.stringValue ?? null };
}

function base(config: PanelConfig, existing: PanelScore | null, comment: string): Omit<ScoreWrite, 'value' | 'stringValue'> {
  return { id: existing?.id ?? null, configId: config.id, name: config.name, dataType: config.dataType, comment: comment.trim() || null };
}

/** A slider's step over a range: 1 between whole bounds 2 to 100 apart (1–5, 0–10), a hundredth of it otherwise (0–1). */
export function rangeStep(min: number, max: number): number {
  const span = max - min;
  return Number.isInteger(min) && Number.isInteger(max) && span >= 2 && span <= 100 ? 1 : span / 100;
}
