// One case to judge (docs/ui.md#human-evaluation): its inputs, then the outputs in the order the
// evaluation recorded for it (left, right), and the verdicts as buttons and keys (judging.ts).
// Single model: a 0–100 score. The judge's own verdict on the case is marked.
import { useEffect, useState, type FormEvent } from 'react';
import { isField } from '../components/keys.ts';
import { judgeAction, parseScore, voteFor, type JudgeAction } from './judging.ts';
import type { HumanScenario } from './scenarios.ts';

export interface Verdict {
  vote?: string;
  score?: number;
}

const abButtons: { action: JudgeAction; label: string; keys: string }[] = [
  { action: 'left', label: 'Left is better', keys: '← or 1' },
  { action: 'right', label: 'Right is better', keys: '→ or 2' },
  { action: 'both-good', label: 'Both good', keys: '3 or G' },
  { action: 'both-bad', label: 'Both bad', keys: '4 or B' },
];

export function JudgePanel({
  type,
  scenario,
  judge,
  index,
  count,
  busy,
  onVerdict,
  onMove,
}: {
  type: string;
  scenario: HumanScenario;
  judge: string;
  index: number;
  count: number;
  busy: boolean;
  onVerdict: (verdict: Verdict) => void;
  onMove: (step: 1 | -1) => void;
}) {
  const mine = scenario.judgements.find((judgement) => judgement.judge === judge);
  const shownIds = scenario.shownOutputs.map((output) => output.variantId);
  const [score, setScore] = useState(mine?.score != null ? String(mine.score) : '');
  const [scoreIssue, setScoreIssue] = useState<string | null>(null);
  useEffect(() => {
    setScore(mine?.score != null ? String(mine.score) : '');
    setScoreIssue(null);
  }, [scenario.id, mine?.score]);

  const act = (action: JudgeAction) => {
    if (action === 'next') return onMove(1);
    if (action === 'previous') return onMove(-1);
    const vote = voteFor(action, shownIds);
    if (vote !== null && !busy) onVerdict({ vote });
  };
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const action = judgeAction(event.key, type, { inField: isField(event.target), modified: event.ctrlKey || event.metaKey || event.altKey });
      if (!action) return;
      event.preventDefault();
      act(action);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });
  const submitScore = (event: FormEvent) => {
    event.preventDefault();
    const parsed = parseScore(score);
    if (parsed === null) return setScoreIssue('A whole number from 0 to 100');
    setScoreIssue(null);
    onVerdict({ score: parsed });
  };
  const chosen = (action: JudgeAction) => mine?.vote != null && mine.vote === voteFor(action, shownIds);

  return (
    <section className="judge-panel" aria-labelledby="judge-case-title">
      <h2 id="judge-case-title">
        Case {index + 1} of {count}
        {mine && (mine.vote != null || mine.score != null) && <span className="badge">judged</span>}
      </h2>
      <dl className="case-fields">
        {scenario.inputs.map((input) => (
          <div key={input.inputName}>
            <dt>{input.inputName}</dt>
            <dd>
              <pre>{input.inputValue}</pre>
            </dd>
          </div>
        ))}
        {scenario.correctAnswer != null && (
          <div>
            <dt>Expected</dt>
            <dd>
              <pre>{scenario.correctAnswer}</pre>
            </dd>
          </div>
        )}
      </dl>
      <div className={`judge-outputs outputs-${scenario.shownOutputs.length}`}>
        {scenario.shownOutputs.map((output, at) => (
          <section
            key={output.variantId}
            className="judge-output"
            aria-label={scenario.shownOutputs.length === 2 ? (at === 0 ? 'Left output' : 'Right output') : 'Output'}
          >
            <p className="compare-cell-head">{scenario.shownOutputs.length === 2 ? (at === 0 ? 'Left' : 'Right') : 'Output'}</p>
            <pre className={output.error ? 'error-text' : undefined}>{output.variantOutput || '(empty)'}</pre>
          </section>
        ))}
        {scenario.shownOutputs.length === 0 && <p className="muted">The outputs are not generated yet.</p>}
      </div>
      {type === 'HUMAN_A_B_TESTING' ? (
        <div className="verdicts" role="group" aria-label="Verdict">
          {abButtons.map((button) => (
            <button
              key={button.action}
              type="button"
              aria-pressed={chosen(button.action)}
              disabled={busy || scenario.shownOutputs.length < 2}
              onClick={() => act(button.action)}
            >
              {button.label} <kbd>{button.keys}</kbd>
            </button>
          ))}
        </div>
      ) : (
        <form className="verdicts" onSubmit={submitScore} noValidate aria-label="Score">
          <label>
            Score from 0 to 100
            <input
              inputMode="numeric"
              value={score}
              aria-invalid={scoreIssue ? true : undefined}
              aria-describedby={scoreIssue ? 'score-issue' : undefined}
              onChange={(event) => setScore(event.target.value)}
            />
          </label>
          <button type="submit" disabled={busy}>
            Save the score <kbd>Enter</kbd>
          </button>
          {scoreIssue && (
            <span id="score-issue" className="field-issue">
              {scoreIssue}
            </span>
          )}
        </form>
      )}
      <div className="judge-moves">
        <button type="button" disabled={index === 0} onClick={() => onMove(-1)}>
          Previous <kbd>P</kbd>
        </button>
        <button type="button" disabled={index >= count - 1} onClick={() => onMove(1)}>
          Next <kbd>N</kbd>
        </button>
      </div>
    </section>
  );
}
