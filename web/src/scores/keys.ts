// Scoring by keyboard (docs/ui.md#scores): what a key does to the score panel that has the keys.
// J and K move between the project's score configs; for the config chosen, 1–9 give its first to
// ninth option (BOOLEAN: 1 True, 2 False; also Y and N), and on a number 0–9 start typing it (Enter
// saves); C writes its comment, T the text score, S gives the keys to the trace's or the span's panel.
import type { PanelConfig } from './panel.ts';

export type ScoreKeyAction =
  | { kind: 'move'; step: 1 | -1 }
  | { kind: 'option'; index: number }
  | { kind: 'type'; digit: string }
  | { kind: 'comment' }
  | { kind: 'text' }
  | { kind: 'switch' };

/** The keys as the panel lists them. */
export const scoreKeys: readonly { keys: string; does: string }[] = [
  { keys: 'J / K', does: 'next / previous score' },
  { keys: '1–9', does: 'choose an option' },
  { keys: 'Y / N', does: 'true / false' },
  { keys: '0–9, Enter', does: 'type a number, save it' },
  { keys: 'C', does: 'comment' },
  { keys: 'T', does: 'text score' },
  { keys: 'S', does: 'score the trace or the span' },
];

/** The action of an unmodified key outside any field, for the config chosen (null: none chosen), or null. */
export function scoreKeyAction(key: string, config: PanelConfig | null): ScoreKeyAction | null {
  const lower = key.length === 1 ? key.toLowerCase() : key;
  if (lower === 'j') return { kind: 'move', step: 1 };
  if (lower === 'k') return { kind: 'move', step: -1 };
  if (lower === 'c') return config ? { kind: 'comment' } : null;
  if (lower === 't') return { kind: 'text' };
  if (lower === 's') return { kind: 'switch' };
  if (!config) return null;
  if (config.dataType === 'NUMERIC') return /^[0-9]$/.test(lower) ? { kind: 'type', digit: lower } : null;
  if (config.dataType === 'BOOLEAN' && (lower === 'y' || lower === 'n')) return { kind: 'option', index: lower === 'y' ? 0 : 1 };
  if (/^[1-9]$/.test(lower)) {
    const index = Number(lower) - 1;
    return index < optionsOf(config).length ? { kind: 'option', index } : null;
  }
  return null;
}

/** A BOOLEAN or CATEGORICAL config's options in the order the panel shows and numbers them. */
export function optionsOf(config: PanelConfig): readonly { label: string; value: number }[] {
  if (config.dataType === 'BOOLEAN') {
    return [
      { label: 'True', value: 1 },
      { label: 'False', value: 0 },
    ];
  }
  return config.dataType === 'CATEGORICAL' ? config.categories : [];
}
