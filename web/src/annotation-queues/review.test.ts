// The review screen's keys and values (review.ts), without a browser.
import { describe, expect, it } from 'vitest';
import type { PanelConfig } from '../scores/panel.ts';
import { completionScores, pickedValue, reviewKeyAction } from './review.ts';

const key = (name: string, modifiers: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; shiftKey: boolean }> = {}) => ({
  key: name,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...modifiers,
});
const config = (id: string, dataType: string, categories: { label: string; value: number }[] = []): PanelConfig => ({
  id,
  name: id,
  dataType,
  minValue: null,
  maxValue: null,
  categories,
  description: null,
});

describe('reviewKeyAction', () => {
  it('reads digits, arrows, Ctrl or Cmd+Enter, E and ?', () => {
    expect(reviewKeyAction(key('3'), false)).toEqual({ kind: 'pick', index: 2 });
    expect(reviewKeyAction(key('0'), false)).toBeNull();
    expect(reviewKeyAction(key('ArrowRight'), false)).toEqual({ kind: 'field', step: 1 });
    expect(reviewKeyAction(key('ArrowLeft', { shiftKey: true }), false)).toEqual({ kind: 'item', step: -1 });
    expect(reviewKeyAction(key('Enter', { ctrlKey: true }), false)).toEqual({ kind: 'complete' });
    expect(reviewKeyAction(key('Enter', { metaKey: true }), true)).toEqual({ kind: 'complete' });
    expect(reviewKeyAction(key('Enter'), false)).toBeNull();
    expect(reviewKeyAction(key('?', { shiftKey: true }), false)).toEqual({ kind: 'help' });
    expect(reviewKeyAction(key('e'), false)).toEqual({ kind: 'correction' });
  });

  it('leaves keys typed into a field to the field, but for Ctrl+Enter and Escape', () => {
    expect(reviewKeyAction(key('3'), true)).toBeNull();
    expect(reviewKeyAction(key('ArrowLeft'), true)).toBeNull();
    expect(reviewKeyAction(key('Escape'), true)).toEqual({ kind: 'escape' });
    expect(reviewKeyAction(key('3', { altKey: true }), false)).toBeNull();
  });
});

describe('pickedValue and completionScores', () => {
  const yes = config('correct', 'BOOLEAN');
  const tone = config('tone', 'CATEGORICAL', [
    { label: 'warm', value: 2 },
    { label: 'cold', value: 0 },
  ]);
  const quality = config('quality', 'NUMERIC');

  it('gives the n-th option, or the number n', () => {
    expect(pickedValue(yes, 1)).toEqual({ value: 0, stringValue: 'False' });
    expect(pickedValue(tone, 0)).toEqual({ value: 2, stringValue: 'warm' });
    expect(pickedValue(tone, 2)).toBeNull();
    expect(pickedValue(quality, 4)).toEqual({ value: 5, stringValue: null });
  });

  it('sends the configs given a value, in the queue order', () => {
    expect(completionScores([yes, tone, quality], { quality: { value: 3, stringValue: null }, correct: { value: 1, stringValue: 'True' } })).toEqual([
      { configId: 'correct', value: 1, stringValue: 'True' },
      { configId: 'quality', value: 3, stringValue: null },
    ]);
  });
});
