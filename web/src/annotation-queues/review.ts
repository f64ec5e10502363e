// The review screen's keys (docs/annotation-queues.md#in-the-ui): 1–9 pick a value of the field in
// focus, ←/→ move between the score fields (and the correction), Shift+←/→ between the items of
// this sitting, Ctrl or Cmd+Enter completes the item and opens the next, E edits the correction,
// ? lists the keys. Keys typed into a field are the field's, but for Ctrl/Cmd+Enter and Escape.
import type { PanelConfig } from '../scores/panel.ts';
import { optionsOf } from '../scores/keys.ts';

export type ReviewKeyAction =
  | { kind: 'pick'; index: number }
  | { kind: 'field'; step: 1 | -1 }
  | { kind: 'item'; step: 1 | -1 }
  | { kind: 'complete' }
  | { kind: 'correction' }
  | { kind: 'help' }
  | { kind: 'escape' };

/** The keys as the screen lists them. */
export const reviewKeys: readonly { keys: string; does: string }[] = [
  { keys: '1–9', does: 'pick a value of the field in focus (the n-th option, or the number n)' },
  { keys: '← / →', does: 'previous / next score field' },
  { keys: 'Shift+← / Shift+→', does: 'previous / next item of this sitting' },
  { keys: 'E', does: 'edit the correction (the expected answer)' },
  { keys: 'Ctrl+Enter or ⌘+Enter', does: 'complete the item and open the next' },
  { keys: 'Esc', does: 'leave a field, close this list' },
  { keys: '?', does: 'show or hide these keys' },
];

interface KeyInput {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

/** What a key does on the review screen; `inField`: it was typed into a field. */
export function reviewKeyAction(event: KeyInput, inField: boolean): ReviewKeyAction | null {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) return { kind: 'complete' };
  if (event.key === 'Escape') return { kind: 'escape' };
  if (inField || event.ctrlKey || event.metaKey || event.altKey) return null;
  if (event.key === '?') return { kind: 'help' };
  if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') return { kind: event.shiftKey ? 'item' : 'field', step: event.key === 'ArrowLeft' ? -1 : 1 };
  if (event.key === 'e' || event.key === 'E') return { kind: 'correction' };
  if (/^[1-9]$/.test(event.key)) return { kind: 'pick', index: Number(event.key) - 1 };
  return null;
}

/** A value given to a config: the number, and the label of a boolean or a category. */
export interface Picked {
  value: number;
  stringValue: string | null;
}

/** The value the n-th pick (from 0) gives a config: its n-th option, or for a number n + 1; null when it has no such option. */
export function pickedValue(config: PanelConfig, index: number): Picked | null {
  if (config.dataType === 'NUMERIC') return { value: index + 1, stringValue: null };
  const option = optionsOf(config)[index];
  return option ? { value: option.value, stringValue: option.label } : null;
}

/** The scores a completion sends: one per config given a value, in the queue's order. */
export function completionScores(configs: readonly PanelConfig[], values: Readonly<Record<string, Picked>>) {
  return configs.flatMap((config) => {
    const picked = values[config.id];
    return picked ? [{ configId: config.id, value: picked.value, stringValue: picked.stringValue }] : [];
  });
}
