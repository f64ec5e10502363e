// A score panel (docs/ui.md#scores): one row per score config of the project, its control made
// from the config's data type (buttons for booleans and categories, a slider with a number for a
// range, a number otherwise), a comment, and the keys of keys.ts; a text score; then the scores no
// row shows. It takes plain data and writes through its callbacks, so the trace's and the span's
// panels share it and its test needs no Relay environment.
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import { refusalOf } from '../components/actions.tsx';
import { isField, shortcutKey } from '../components/keys.ts';
import { KeyList } from '../components/KeyList.tsx';
import { optionsOf, scoreKeyAction, scoreKeys } from './keys.ts';
import {
  annotationOf,
  commentWrite,
  numberWrite,
  optionWrite,
  otherScores,
  rangeStep,
  scoreValueText,
  type PanelConfig,
  type PanelScore,
  type ScoreWrite,
} from './panel.ts';
import { ScoreSource } from './ScoreSource.tsx';
import './scores.css';

export interface ScorePanelProps {
  /** What is scored, in words: "this trace", "span chat". */
  target: string;
  configs: readonly PanelConfig[];
  scores: readonly PanelScore[];
  /** Whether the keys score here (one panel at a time has them). */
  keysActive: boolean;
  /** The panel was used: it takes the keys. */
  onTakeKeys: () => void;
  /** S: the keys go to the other panel. */
  onSwitch: () => void;
  onWrite: (write: ScoreWrite) => Promise<unknown>;
  onDelete: (scoreId: string) => Promise<unknown>;
}

type Refusal = { at: string; message: string };

function without(drafts: Record<string, string>, key: string): Record<string, string> {
  const rest = { ...drafts };
  delete rest[key];
  return rest;
}

export function ScorePanel({ target, configs, scores, keysActive, onTakeKeys, onSwitch, onWrite, onDelete }: ScorePanelProps) {
  const id = useId();
  const [active, setActive] = useState(0);
  const [numbers, setNumbers] = useState<Record<string, string>>({});
  const [comments, setComments] = useState<Record<string, string>>({});
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [textName, setTextName] = useState('note');
  const [text, setText] = useState('');
  const section = useRef<HTMLElement>(null);
  const numberInputs = useRef(new Map<string, HTMLInputElement>());
  const commentInputs = useRef(new Map<string, HTMLInputElement>());
  const textInput = useRef<HTMLTextAreaElement>(null);
  const current = configs[Math.min(active, configs.length - 1)] ?? null;

  const write = async (at: string, score: ScoreWrite | string) => {
    if (typeof score === 'string') return setRefusal({ at, message: score });
    try {
      await onWrite(score);
      setRefusal(null);
      if (score.configId) {
        const done = score.configId;
        setNumbers((drafts) => without(drafts, done));
        setComments((drafts) => without(drafts, done));
      }
    } catch (error) {
      const { message, fields } = refusalOf(error);
      setRefusal({ at, message: Object.values(fields)[0] ?? message });
    }
  };
  const remove = async (at: string, scoreId: string) => {
    try {
      await onDelete(scoreId);
      setRefusal(null);
    } catch (error) {
      setRefusal({ at, message: refusalOf(error).message });
    }
  };
  const commentOf = (config: PanelConfig) => comments[config.id] ?? annotationOf(scores, config)?.comment ?? '';
  const choose = (config: PanelConfig, index: number) => {
    const option = optionsOf(config)[index];
    if (option) void write(config.id, optionWrite(config, option, annotationOf(scores, config), commentOf(config)));
  };
  const saveNumber = (config: PanelConfig) => {
    const existing = annotationOf(scores, config);
    void write(config.id, numberWrite(config, numbers[config.id] ?? (existing?.value != null ? String(existing.value) : ''), existing, commentOf(config)));
  };
  const saveComment = (config: PanelConfig) => {
    const existing = annotationOf(scores, config);
    if (existing) void write(config.id, commentWrite(config, existing, commentOf(config)));
    else if (config.dataType === 'NUMERIC' && numbers[config.id]) saveNumber(config);
  };

  useEffect(() => {
    if (!keysActive) return;
    const onKey = (event: KeyboardEvent) => {
      if (!shortcutKey(event)) return;
      const action = scoreKeyAction(event.key, current);
      if (!action) return;
      event.preventDefault();
      if (action.kind === 'switch') return onSwitch();
      if (action.kind === 'move') return setActive((index) => Math.max(0, Math.min(configs.length - 1, index + action.step)));
      if (action.kind === 'text') return textInput.current?.focus();
      if (!current) return;
      if (action.kind === 'comment') return commentInputs.current.get(current.id)?.focus();
      if (action.kind === 'option') return choose(current, action.index);
      // A digit on a number: typing starts in its field, Enter saves.
      setNumbers((drafts) => ({ ...drafts, [current.id]: action.digit }));
      numberInputs.current.get(current.id)?.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  // Escape in a field gives the keys back to the panel.
  const onPanelKey = (event: ReactKeyboardEvent) => {
    if (event.key === 'Escape' && isField(event.target)) {
      event.preventDefault();
      section.current?.focus();
    }
  };
  const saveText = (event: FormEvent | ReactKeyboardEvent) => {
    event.preventDefault();
    void write('text', { id: null, configId: null, name: textName.trim(), dataType: 'TEXT', value: null, stringValue: text, comment: null }).then(() =>
      setText(''),
    );
  };
  const others = otherScores(scores, configs);

  return (
    <section
      ref={section}
      tabIndex={-1}
      className={`score-panel${keysActive ? ' keys-active' : ''}`}
      aria-labelledby={`${id}-title`}
      onFocus={onTakeKeys}
      onPointerDown={onTakeKeys}
      onKeyDown={onPanelKey}
    >
      <h2 id={`${id}-title`}>Scores of {target}</h2>
      <p className="muted small score-keys-state">{keysActive ? 'The keys score here.' : 'Press S or click here to score with the keys.'}</p>
      {configs.length === 0 ? (
        <p className="muted">No score config yet: an admin creates them under Admin, Score configs.</p>
      ) : (
        <ol className="score-rows">
          {configs.map((config, index) => {
            const existing = annotationOf(scores, config);
            const isActive = index === Math.min(active, configs.length - 1);
            const errorId = `${id}-${config.id}-error`;
            const failed = refusal?.at === config.id;
            return (
              <li
                key={config.id}
                className={`score-row${isActive ? ' active' : ''}`}
                aria-current={isActive ? 'true' : undefined}
                onPointerDown={() => setActive(index)}
                onFocus={() => setActive(index)}
              >
                <div className="score-row-head">
                  <span className="score-name">{config.name}</span>
                  <span className="muted small">
                    {existing ? `${scoreValueText(existing)}${existing.comment ? ` · ${existing.comment}` : ''}` : 'not scored'}
                  </span>
                  {existing && (
                    <button type="button" className="link-button small" onClick={() => void remove(config.id, existing.id)}>
                      Remove <span className="visually-hidden">the score {config.name}</span>
                    </button>
                  )}
                </div>
                {config.description && <p className="muted small">{config.description}</p>}
                {config.dataType === 'NUMERIC' ? (
                  <NumberControl
                    config={config}
                    draft={numbers[config.id] ?? (existing?.value != null ? String(existing.value) : '')}
                    onDraft={(value) => setNumbers((drafts) => ({ ...drafts, [config.id]: value }))}
                    onSave={() => saveNumber(config)}
                    inputRef={(input) => (input ? numberInputs.current.set(config.id, input) : numberInputs.current.delete(config.id))}
                    errorId={failed ? errorId : undefined}
                  />
                ) : (
                  <div className="score-options" role="group" aria-label={config.name}>
                    {optionsOf(config).map((option, optionIndex) => (
                      <button
                        key={option.label}
                        type="button"
                        aria-pressed={existing?.stringValue === option.label}
                        aria-describedby={failed ? errorId : undefined}
                        onClick={() => choose(config, optionIndex)}
                      >
                        {option.label}
                        {isActive && optionIndex < 9 && <kbd aria-hidden="true">{optionIndex + 1}</kbd>}
                      </button>
                    ))}
                  </div>
                )}
                <input
                  ref={(input) => void (input ? commentInputs.current.set(config.id, input) : commentInputs.current.delete(config.id))}
                  className="score-comment"
                  aria-label={`Comment on ${config.name}`}
                  placeholder="Comment (Enter saves)"
                  value={commentOf(config)}
                  onChange={(event) => setComments((drafts) => ({ ...drafts, [config.id]: event.target.value }))}
                  onKeyDown={(event) => {
                    if (event.key === 'Enter') {
                      event.preventDefault();
                      saveComment(config);
                    }
                  }}
                />
                {failed && (
                  <p id={errorId} className="error-text small" role="alert">
                    {refusal.message}
                  </p>
                )}
              </li>
            );
          })}
        </ol>
      )}
      <form className="score-text" onSubmit={saveText} aria-label={`Text score of ${target}`}>
        <label>
          Name <input value={textName} onChange={(event) => setTextName(event.target.value)} />
        </label>
        <label>
          Text
          <textarea
            ref={textInput}
            rows={2}
            value={text}
            aria-describedby={refusal?.at === 'text' ? `${id}-text-error` : undefined}
            onChange={(event) => setText(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) saveText(event);
            }}
          />
        </label>
        <button type="submit">Save the text</button>
        {refusal?.at === 'text' && (
          <p id={`${id}-text-error`} className="error-text small" role="alert">
            {refusal.message}
          </p>
        )}
      </form>
      {others.length > 0 && (
        <>
          <h3>Other scores</h3>
          <ul className="score-others">
            {others.map((score) => (
              <li key={score.id}>
                <span className="score-name">{score.name}</span> {scoreValueText(score)}{' '}
                <span className="muted small">
                  <ScoreSource source={score.source} metadata={score.metadata} />
                </span>
                {score.comment && <span className="muted small"> · {score.comment}</span>}{' '}
                <button type="button" className="link-button small" onClick={() => void remove(score.id, score.id)}>
                  Remove <span className="visually-hidden">the score {score.name}</span>
                </button>
                {refusal?.at === score.id && (
                  <span className="error-text small" role="alert">
                    {' '}
                    {refusal.message}
                  </span>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
      <details className="score-key-list">
        <summary>Keys</summary>
        <KeyList keys={[...scoreKeys, { keys: 'Esc', does: 'leave a field' }]} />
      </details>
    </section>
  );
}

/** A NUMERIC config's control: a slider beside the number over a closed range, the number alone otherwise. */
function NumberControl({
  config,
  draft,
  onDraft,
  onSave,
  inputRef,
  errorId,
}: {
  config: PanelConfig;
  draft: string;
  onDraft: (value: string) => void;
  onSave: () => void;
  inputRef: (input: HTMLInputElement | null) => void;
  errorId: string | undefined;
}) {
  const range = config.minValue != null && config.maxValue != null ? { min: config.minValue, max: config.maxValue } : null;
  const onEnter = (event: ReactKeyboardEvent) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      onSave();
    }
  };
  const bounds = [config.minValue != null ? `from ${config.minValue}` : '', config.maxValue != null ? `to ${config.maxValue}` : ''].filter(Boolean).join(' ');
  return (
    <div className="score-number">
      {range && (
        <input
          type="range"
          aria-label={`${config.name}, slider`}
          min={range.min}
          max={range.max}
          step={rangeStep(range.min, range.max)}
          value={draft === '' || Number.isNaN(Number(draft)) ? range.min : Number(draft)}
          onChange={(event) => onDraft(event.target.value)}
          onKeyDown={onEnter}
        />
      )}
      <input
        ref={inputRef}
        type="text"
        inputMode="decimal"
        aria-label={`${config.name}${bounds ? ` (${bounds})` : ''}`}
        aria-describedby={errorId}
        aria-invalid={errorId ? true : undefined}
        value={draft}
        onChange={(event) => onDraft(event.target.value)}
        onKeyDown={onEnter}
      />
      <button type="button" onClick={onSave}>
        Save <span className="visually-hidden">{config.name}</span>
      </button>
    </div>
  );
}
