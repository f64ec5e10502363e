// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { Router } from '../router.tsx';
import { ResultsTable } from './ResultsTable.tsx';
import type { Scenario } from './EvaluationResults.tsx';

afterEach(cleanup);

function scenario(position: number): Scenario {
  const failed = position % 3 === 2;
  return {
    id: `s${position}`,
    position,
    inputs: [{ name: 'n', type: 'text', value: String(position) }],
    correctAnswers: [{ key: 'correct_answer', value: `answer ${position}` }],
    traceId: position === 0 ? null : `trace${position}`,
    outputs: [{ cost: 0.001, latency: 0.25, result: { type: 'text', value: `output ${position}`, error: null } }],
    results: [
      {
        evaluatorConfigId: 'c1',
        result: failed ? { type: 'error', value: null, error: { message: `broke on ${position}` } } : { type: 'bool', value: position % 2 === 0, error: null },
      },
    ],
  };
}

function setup(count: number) {
  const rows = Array.from({ length: count }, (_, index) => scenario(index));
  render(
    <Router>
      <ResultsTable rows={rows} total={count + 5} configs={[{ id: 'c1', name: 'exact' }]} projectId="p1" />
    </Router>,
  );
  const table = screen.getByRole('table', { name: 'Results per test case' });
  const body = screen.getByRole('rowgroup', { name: 'Test cases' });
  return { table, body };
}

describe('ResultsTable', () => {
  it('renders only the rows in view of 10,000, with the total for screen readers', () => {
    const { table } = setup(10_000);
    expect(table.getAttribute('aria-rowcount')).toBe('10006');
    const rows = within(table).getAllByRole('row');
    expect(rows.length).toBeLessThan(40);
    expect(rows[1].getAttribute('aria-rowindex')).toBe('2');
    expect(
      within(rows[1])
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    ).toEqual(['1', 'n: 0', 'answer 0', 'output 0', 'pass', '$0.0010', '250 ms', '–']);
    expect(within(rows[3]).getAllByRole('cell')[4].textContent).toBe('Error: broke on 2');
    expect(screen.getByText(/10,000 of 10,005 cases loaded/)).toBeTruthy();
  });

  it('moves the selection with the keyboard and shows the case whole, with its trace link', () => {
    const { body } = setup(50);
    fireEvent.keyDown(body, { key: 'ArrowDown' });
    expect(screen.getByRole('region', { name: 'Test case 1' })).toBeTruthy();
    fireEvent.keyDown(body, { key: 'ArrowDown' });
    fireEvent.keyDown(body, { key: 'ArrowDown' });
    const third = screen.getByRole('region', { name: 'Test case 3' });
    expect(third.textContent).toContain('Error: broke on 2');
    expect(within(third).getByRole('link', { name: 'Open the trace' }).getAttribute('href')).toBe('/p/p1/traces/trace2');
    fireEvent.keyDown(body, { key: 'End' });
    expect(screen.getByRole('region', { name: 'Test case 50' })).toBeTruthy();
    fireEvent.keyDown(body, { key: 'ArrowDown' });
    expect(screen.getByRole('region', { name: 'Test case 50' })).toBeTruthy();
    fireEvent.keyDown(body, { key: 'Home' });
    expect(screen.getByRole('region', { name: 'Test case 1' }).textContent).not.toContain('Open the trace');
  });
});
