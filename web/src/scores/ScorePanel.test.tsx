// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../relay.ts';
import { scoreKeyAction } from './keys.ts';
import { numberWrite, rangeStep, type PanelConfig, type PanelScore } from './panel.ts';
import { ScorePanel } from './ScorePanel.tsx';

afterEach(cleanup);

const config = (id: string, dataType: string, extra: Partial<PanelConfig> = {}): PanelConfig => ({
  id,
  name: id,
  dataType,
  minValue: null,
  maxValue: null,
  categories: [],
  description: null,
  ...extra,
});

const configs = [
  config('correct', 'BOOLEAN'),
  config('tone', 'CATEGORICAL', {
    categories: [
      { label: 'rude', value: 0 },
      { label: 'neutral', value: 1 },
      { label: 'kind', value: 2 },
    ],
  }),
  config('quality', 'NUMERIC', { minValue: 0, maxValue: 10, description: 'How good, 0 to 10' }),
  config('words', 'NUMERIC'),
];

const scores: PanelScore[] = [
  { id: 'tone-1', name: 'tone', dataType: 'CATEGORICAL', value: 1, stringValue: 'neutral', comment: 'flat', source: 'annotation', configId: 'tone' },
  { id: 'thumbs-1', name: 'thumbs', dataType: 'BOOLEAN', value: 0, stringValue: 'False', comment: null, source: 'api', configId: null },
];

function setup({ keysActive = true, onWrite = vi.fn(() => Promise.resolve()) } = {}) {
  const onSwitch = vi.fn();
  const onDelete = vi.fn(() => Promise.resolve());
  const onTakeKeys = vi.fn();
  render(
    <ScorePanel
      target="this trace"
      configs={configs}
      scores={scores}
      keysActive={keysActive}
      onTakeKeys={onTakeKeys}
      onSwitch={onSwitch}
      onWrite={onWrite}
      onDelete={onDelete}
    />,
  );
  return { onWrite, onSwitch, onDelete, onTakeKeys };
}

const press = async (key: string, target: Window | Element = window) => {
  await act(() => {
    fireEvent.keyDown(target, { key });
    return Promise.resolve();
  });
};

describe('the score keys', () => {
  it('read a key by the config chosen', () => {
    expect(scoreKeyAction('J', null)).toEqual({ kind: 'move', step: 1 });
    expect(scoreKeyAction('y', configs[0])).toEqual({ kind: 'option', index: 0 });
    expect(scoreKeyAction('2', configs[0])).toEqual({ kind: 'option', index: 1 });
    expect(scoreKeyAction('3', configs[0])).toBeNull();
    expect(scoreKeyAction('3', configs[1])).toEqual({ kind: 'option', index: 2 });
    expect(scoreKeyAction('y', configs[1])).toBeNull();
    expect(scoreKeyAction('0', configs[2])).toEqual({ kind: 'type', digit: '0' });
    expect(scoreKeyAction('c', null)).toBeNull();
    expect(scoreKeyAction('ArrowDown', configs[1])).toBeNull();
  });

  it('write numbers as typed, leaving ranges to the API, and step sliders by the range', () => {
    expect(numberWrite(configs[2], '11', null, ' ')).toEqual({
      id: null,
      configId: 'quality',
      name: 'quality',
      dataType: 'NUMERIC',
      value: 11,
      stringValue: null,
      comment: null,
    });
    expect(numberWrite(configs[2], 'ten', null, '')).toBe('Type a number');
    expect(numberWrite(configs[2], '', null, '')).toBe('Type a number');
    expect(rangeStep(0, 10)).toBe(1);
    expect(rangeStep(1, 5)).toBe(1);
    expect(rangeStep(0, 1)).toBe(0.01);
  });
});

describe('ScorePanel', () => {
  it('builds a row per config from its data type, and lists the scores no row shows', () => {
    setup();
    const rows = screen.getAllByRole('listitem').filter((item) => item.classList.contains('score-row'));
    expect(rows.map((row) => row.querySelector('.score-name')?.textContent)).toEqual(['correct', 'tone', 'quality', 'words']);
    expect(
      within(screen.getByRole('group', { name: 'correct' }))
        .getAllByRole('button')
        .map((button) => button.textContent),
    ).toEqual(['True1', 'False2']);
    expect(
      within(screen.getByRole('group', { name: 'tone' }))
        .getByRole('button', { name: 'neutral' })
        .getAttribute('aria-pressed'),
    ).toBe('true');
    expect(screen.getByRole('slider', { name: 'quality, slider' })).toBeTruthy();
    expect(screen.getByRole('textbox', { name: 'quality (from 0 to 10)' })).toBeTruthy();
    expect(screen.queryByRole('slider', { name: 'words, slider' })).toBeNull();
    expect(screen.getByText('How good, 0 to 10')).toBeTruthy();
    expect(screen.getByRole('textbox', { name: 'Comment on tone' })).toHaveProperty('value', 'flat');
    const others = screen.getByRole('heading', { name: 'Other scores' }).nextElementSibling as HTMLElement;
    expect(others.textContent).toContain('thumbs False api');
    expect(screen.getByText('J / K')).toBeTruthy();
  });

  it('scores with the keys alone: an option, a category keeping its comment, a number typed and saved', async () => {
    const { onWrite, onSwitch } = setup();
    await press('y');
    expect(onWrite).toHaveBeenLastCalledWith({
      id: null,
      configId: 'correct',
      name: 'correct',
      dataType: 'BOOLEAN',
      value: 1,
      stringValue: 'True',
      comment: null,
    });
    await press('j');
    await press('3');
    expect(onWrite).toHaveBeenLastCalledWith({
      id: 'tone-1',
      configId: 'tone',
      name: 'tone',
      dataType: 'CATEGORICAL',
      value: 2,
      stringValue: 'kind',
      comment: 'flat',
    });
    await press('j');
    await press('7');
    const number = screen.getByRole('textbox', { name: 'quality (from 0 to 10)' });
    expect(document.activeElement).toBe(number);
    expect(number).toHaveProperty('value', '7');
    // Typed into the field, a key is the field's, not a shortcut.
    await press('j', number);
    fireEvent.change(number, { target: { value: '7.5' } });
    await press('Enter', number);
    expect(onWrite).toHaveBeenLastCalledWith({
      id: null,
      configId: 'quality',
      name: 'quality',
      dataType: 'NUMERIC',
      value: 7.5,
      stringValue: null,
      comment: null,
    });
    expect(onWrite).toHaveBeenCalledTimes(3);
    await press('c');
    expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'Comment on quality' }));
    await press('Escape', document.activeElement!);
    await press('s');
    expect(onSwitch).toHaveBeenCalledTimes(1);
  });

  it('leaves the keys alone when another panel has them', async () => {
    const { onWrite, onSwitch } = setup({ keysActive: false });
    await press('y');
    await press('s');
    expect(onWrite).not.toHaveBeenCalled();
    expect(onSwitch).not.toHaveBeenCalled();
    expect(screen.getByText('Press S or click here to score with the keys.')).toBeTruthy();
  });

  it("shows the API's refusal under the row it concerns", async () => {
    const refused = vi.fn(() => {
      return Promise.reject(
        new ApiError('Input should be less than or equal to 10', 422, 'BAD_USER_INPUT', [
          { loc: ['input', 0, 'value'], msg: 'Input should be less than or equal to 10 (score config quality)', type: 'value_error' },
        ]),
      );
    });
    setup({ onWrite: refused });
    const number = screen.getByRole('textbox', { name: 'quality (from 0 to 10)' });
    fireEvent.change(number, { target: { value: '11' } });
    await press('Enter', number);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toBe('Input should be less than or equal to 10 (score config quality)');
    expect(number.getAttribute('aria-describedby')).toBe(alert.id);
  });

  it('saves a text score and removes a score', async () => {
    const { onWrite, onDelete } = setup();
    await press('t');
    const text = screen.getByRole('textbox', { name: 'Text' });
    expect(document.activeElement).toBe(text);
    fireEvent.change(text, { target: { value: 'Cites the wrong year' } });
    await act(() => {
      fireEvent.click(screen.getByRole('button', { name: 'Save the text' }));
      return Promise.resolve();
    });
    expect(onWrite).toHaveBeenLastCalledWith({
      id: null,
      configId: null,
      name: 'note',
      dataType: 'TEXT',
      value: null,
      stringValue: 'Cites the wrong year',
      comment: null,
    });
    await act(() => {
      fireEvent.click(screen.getByRole('button', { name: 'Remove the score thumbs' }));
      return Promise.resolve();
    });
    expect(onDelete).toHaveBeenCalledWith('thumbs-1');
  });
});
