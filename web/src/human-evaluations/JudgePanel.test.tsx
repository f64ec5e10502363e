// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { judgeAction, judgeProgress, parseScore, voteFor } from './judging.ts';
import { JudgePanel } from './JudgePanel.tsx';
import type { HumanScenario } from './scenarios.ts';

afterEach(cleanup);

// Recorded order: variant B on the left, A on the right.
const scenario = (judgements: HumanScenario['judgements'] = []): HumanScenario => ({
  id: 's1',
  position: 0,
  correctAnswer: 'Paris',
  hasError: false,
  inputs: [{ inputName: 'country', inputValue: 'France' }],
  shownOutputs: [
    { variantId: 'B', variantOutput: 'It is Paris', error: null },
    { variantId: 'A', variantOutput: 'Rome', error: null },
  ],
  judgements,
});

function setup(type = 'HUMAN_A_B_TESTING', judgements: HumanScenario['judgements'] = [], index = 1) {
  const onVerdict = vi.fn();
  const onMove = vi.fn();
  render(<JudgePanel type={type} scenario={scenario(judgements)} judge="ada" index={index} count={3} busy={false} onVerdict={onVerdict} onMove={onMove} />);
  return { onVerdict, onMove };
}

describe('keyboard judging', () => {
  it('shows the outputs in their recorded order', () => {
    setup();
    expect(within(screen.getByRole('region', { name: 'Left output' })).getByText('It is Paris')).toBeTruthy();
    expect(within(screen.getByRole('region', { name: 'Right output' })).getByText('Rome')).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Case 2 of 3' })).toBeTruthy();
  });

  it('votes with the keys: left and right are the variants shown there, then both good and both bad', () => {
    const { onVerdict } = setup();
    fireEvent.keyDown(window, { key: 'ArrowLeft' });
    fireEvent.keyDown(window, { key: '2' });
    fireEvent.keyDown(window, { key: 'g' });
    fireEvent.keyDown(window, { key: 'B' });
    expect(onVerdict.mock.calls).toEqual([[{ vote: 'B' }], [{ vote: 'A' }], [{ vote: '1' }], [{ vote: '0' }]]);
    // Modified keys stay the browser's.
    fireEvent.keyDown(window, { key: 'ArrowLeft', altKey: true });
    expect(onVerdict).toHaveBeenCalledTimes(4);
  });

  it('moves with N and P, and by buttons', () => {
    const { onMove } = setup();
    fireEvent.keyDown(window, { key: 'n' });
    fireEvent.keyDown(window, { key: 'p' });
    fireEvent.click(screen.getByRole('button', { name: /Next/ }));
    expect(onMove.mock.calls).toEqual([[1], [-1], [1]]);
  });

  it("marks the judge's own verdict", () => {
    setup('HUMAN_A_B_TESTING', [
      { judge: 'ada', vote: 'A', score: null },
      { judge: 'bo', vote: 'B', score: null },
    ]);
    expect(screen.getByRole('button', { name: /Right is better/ }).getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByRole('button', { name: /Left is better/ }).getAttribute('aria-pressed')).toBe('false');
  });

  it('scores a single model from 0 to 100; keys typed in the score are the field’s', () => {
    const { onVerdict, onMove } = setup('SINGLE_MODEL_TEST', [{ judge: 'ada', vote: null, score: 40 }]);
    const field = screen.getByLabelText<HTMLInputElement>('Score from 0 to 100');
    expect(field.value).toBe('40');
    fireEvent.keyDown(field, { key: 'n' });
    expect(onMove).not.toHaveBeenCalled();
    fireEvent.change(field, { target: { value: '101' } });
    fireEvent.submit(field.form!);
    expect(screen.getByText('A whole number from 0 to 100')).toBeTruthy();
    fireEvent.change(field, { target: { value: '85' } });
    fireEvent.submit(field.form!);
    expect(onVerdict).toHaveBeenCalledWith({ score: 85 });
    // The A/B keys mean nothing here.
    fireEvent.keyDown(window, { key: 'ArrowLeft' });
    expect(onVerdict).toHaveBeenCalledTimes(1);
  });
});

describe('judging.ts', () => {
  it('maps keys to actions only outside fields', () => {
    expect(judgeAction('ArrowRight', 'HUMAN_A_B_TESTING', { inField: false, modified: false })).toBe('right');
    expect(judgeAction('ArrowRight', 'HUMAN_A_B_TESTING', { inField: true, modified: false })).toBeNull();
    expect(judgeAction('K', 'SINGLE_MODEL_TEST', { inField: false, modified: false })).toBe('previous');
    expect(judgeAction('x', 'HUMAN_A_B_TESTING', { inField: false, modified: false })).toBeNull();
    expect(voteFor('next', ['a', 'b'])).toBeNull();
    expect(parseScore(' 0 ')).toBe(0);
    expect(parseScore('7.5')).toBeNull();
  });

  it('counts each judge’s verdicts, in name order', () => {
    const rows = [
      {
        judgements: [
          { judge: 'bo', vote: 'A' },
          { judge: 'ada', vote: '1' },
        ],
      },
      {
        judgements: [
          { judge: 'ada', score: 10 },
          { judge: 'cy', vote: null, score: null },
        ],
      },
    ];
    expect(judgeProgress(rows)).toEqual([
      { judge: 'ada', judged: 2 },
      { judge: 'bo', judged: 1 },
    ]);
  });
});
