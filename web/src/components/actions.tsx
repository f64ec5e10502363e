// Acting on the API from a screen (docs/ui.md#forms): a mutation as a promise whose refusal the
// screen shows, a list read anew after each change, a secret shown once with a copy button, and a
// confirmation before a destructive act.
import { startTransition, useCallback, useEffect, useRef, useState } from 'react';
import { useMutation, type GraphQLTaggedNode } from 'react-relay';
import type { MutationParameters } from 'relay-runtime';
import { ApiError } from '../relay.ts';
import { fieldErrors } from '../session.tsx';

/** A mutation as a promise: resolves with its answer, rejects with the API's refusal. */
export function useCommit<T extends MutationParameters>(mutation: GraphQLTaggedNode) {
  const [commit, pending] = useMutation<T>(mutation);
  const run = useCallback(
    (variables: T['variables']) =>
      new Promise<T['response']>((resolve, reject) => {
        commit({ variables, onCompleted: (response) => resolve(response), onError: reject });
      }),
    [commit],
  );
  return [run, pending] as const;
}

/** A refusal's message and its fields' messages, to show beside a form's fields. */
export function refusalOf(error: unknown): { message: string; fields: Record<string, string> } {
  if (error instanceof ApiError) return { message: error.message, fields: fieldErrors(error.detail) };
  return { message: error instanceof Error ? error.message : String(error), fields: {} };
}

/**
 * A screen's changes: `act` runs one, then clears the last refusal and has the list read anew
 * (`reload`: a refetchable fragment's refetch, in a transition so the table stays on
 * screen); a refusal (the last admin, a 403) is kept in `error`
 * for the form to show.
 */
export function useActions(reload: () => void) {
  const [error, setError] = useState<ReturnType<typeof refusalOf> | null>(null);
  const act = useCallback(
    async (change: () => Promise<unknown>) => {
      try {
        await change();
        setError(null);
        startTransition(reload);
      } catch (caught) {
        setError(refusalOf(caught));
      }
    },
    [reload],
  );
  return { error, act };
}

/** A secret the API shows once (a new key): selectable, copyable, gone once dismissed. */
export function CopyOnce({
  label,
  value,
  onDone,
  note = 'Copy it now: it will not be shown again.',
}: {
  label: string;
  value: string;
  onDone: () => void;
  note?: string;
}) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.select(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      // No clipboard (permission, an insecure origin): the text is selected for Ctrl+C instead.
      field.current?.select();
      setCopied('failed');
    }
  };
  return (
    <div className="copy-once" role="region" aria-label={label}>
      <p>
        <strong>{label}</strong>
        <br />
        {note}
      </p>
      <div className="copy-row">
        <input ref={field} readOnly value={value} aria-label={label} className="secret" onFocus={(event) => event.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Done
        </button>
      </div>
      <p className="small" role="status">
        {copied === 'yes' ? 'Copied.' : copied === 'failed' ? 'Copying is not allowed here: the text is selected, press Ctrl+C.' : ''}
      </p>
    </div>
  );
}

/** A button that asks again before acting; the confirmation takes the focus, Escape cancels. */
export function ConfirmButton({
  label,
  question,
  confirm,
  onConfirm,
  disabled,
}: {
  label: string;
  question: string;
  confirm: string;
  onConfirm: () => void;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const yes = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) yes.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" className="secondary" disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={question} onKeyDown={(event) => event.key === 'Escape' && setAsking(false)}>
      <span className="small">{question}</span>
      <button
        ref={yes}
        type="button"
        className="danger"
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirm}
      </button>
      <button type="button" className="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
