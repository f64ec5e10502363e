// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { TextDiff, textDiff } from './TextDiff.tsx';

afterEach(cleanup);

describe('textDiff', () => {
  it('diffs one line by words and several by lines', () => {
    expect(textDiff('The capital is Santiago', 'The capital is Rome')).toEqual([
      { value: 'The capital is ', added: false, removed: false },
      { value: 'Santiago', added: false, removed: true },
      { value: 'Rome', added: true, removed: false },
    ]);
    expect(textDiff('a\nb\nc\n', 'a\nx\nc\n').filter((part) => part.added || part.removed)).toEqual([
      { value: 'b\n', added: false, removed: true },
      { value: 'x\n', added: true, removed: false },
    ]);
    expect(textDiff('same', 'same')).toEqual([{ value: 'same', added: false, removed: false }]);
  });

  it('marks removed and added text, named for screen readers', () => {
    render(<TextDiff before="It is Paris" after="It is Rome" label="Output against the baseline" />);
    const group = screen.getByRole('group', { name: 'Output against the baseline' });
    expect(group.querySelector('del')!.textContent).toBe('[removed: Paris]');
    expect(group.querySelector('ins')!.textContent).toBe('[added: Rome]');
    expect(group.textContent).toBe('It is [removed: Paris][added: Rome]');
  });
});
