// The form kit every screen uses (docs/ui.md#forms): labelled fields, a refused input's faults
// beside the field its 422 `loc` names (with aria-invalid and aria-describedby), the faults no
// field shows and the failures that are not refusals, selects and groups of checkboxes.
import { useId, useState, type InputHTMLAttributes, type ReactNode } from 'react';
import { ApiError, type InputIssue } from '../relay.ts';
import { ErrorMessage } from './states.tsx';
import './forms.css';

interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  label: string;
  error?: string | undefined;
  hint?: string;
}

export function Field({ label, error, hint, ...input }: FieldProps) {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-invalid={error ? true : undefined} aria-describedby={described || undefined} {...input} />
      {hint && (
        <span id={`${id}-hint`} className="muted small">
          {hint}
        </span>
      )}
      {error && (
        <span id={`${id}-error`} className="error-text">
          {error}
        </span>
      )}
    </div>
  );
}

/** A form's error that names no field. */
export function FormError({ message }: { message: string | null }) {
  return message ? (
    <p className="form-error" role="alert">
      {message}
    </p>
  ) : null;
}

/** A text field's value in a submitted form ('' when absent). */
export function formText(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === 'string' ? value : '';
}

/**
 * A 422's faults by field: `loc` without its leading `body` (or `args`/`input`) joined with dots,
 * as REST names the field (`rate_limit.batch_size`, `variant_ids`); a form shows each beside its field.
 */
export function issuesByField(issues: readonly InputIssue[]): Map<string, string[]> {
  const byField = new Map<string, string[]>();
  for (const issue of issues) {
    const loc = ['body', 'args', 'input'].includes(String(issue.loc[0])) ? issue.loc.slice(1) : issue.loc;
    const field = loc.join('.');
    byField.set(field, [...(byField.get(field) ?? []), issue.msg]);
  }
  return byField;
}

/** The messages for `field` and anything under it (`variant_ids` takes `variant_ids.0`). */
export function issuesFor(issues: ReadonlyMap<string, string[]>, field: string): string[] {
  return [...issues].filter(([key]) => key === field || key.startsWith(`${field}.`)).flatMap(([, messages]) => messages);
}

/** Faults whose field the form does not show, so none goes unseen. */
export function otherIssues(issues: ReadonlyMap<string, string[]>, fields: readonly string[]): string[] {
  return [...issues]
    .filter(([key]) => !fields.some((field) => key === field || key.startsWith(`${field}.`)))
    .map(([key, messages]) => `${key || 'request'}: ${messages.join('; ')}`);
}

export const issueId = (field: string) => `issue-${field.replace(/[^a-z0-9]+/gi, '-')}`;

/** The props that tie a control to its faults: aria-invalid and aria-describedby. */
export function invalidProps(issues: ReadonlyMap<string, string[]>, field: string) {
  return issuesFor(issues, field).length > 0 ? { 'aria-invalid': true as const, 'aria-describedby': issueId(field) } : {};
}

export function FieldIssues({ issues, field }: { issues: ReadonlyMap<string, string[]>; field: string }): ReactNode {
  const messages = issuesFor(issues, field);
  if (messages.length === 0) return null;
  return (
    <span className="field-issue" id={issueId(field)}>
      {messages.join('; ')}
    </span>
  );
}

/**
 * A form's faults by field and its other failure, with `onError`, which puts a refusal that names
 * fields (a 422) beside them and anything else in `failure`.
 */
export function useFormIssues() {
  const [issues, setIssues] = useState<Map<string, string[]>>(new Map());
  const [failure, setFailure] = useState<unknown>(null);
  const onError = (error: unknown) => {
    if (error instanceof ApiError && error.detail.length > 0) setIssues(issuesByField(error.detail));
    else setFailure(error);
  };
  const reset = () => {
    setIssues(new Map());
    setFailure(null);
  };
  return { issues, setIssues, failure, setFailure, onError, reset };
}

/**
 * What a form shows below its fields: the faults none of `fields` shows, then `notice` (where the
 * faults are all beside their fields), then a failure that is not a refusal.
 */
export function FormIssues({
  issues,
  fields,
  failure,
  notice,
}: {
  issues: ReadonlyMap<string, string[]>;
  fields: readonly string[];
  failure: unknown;
  notice?: string;
}): ReactNode {
  const unplaced = otherIssues(issues, fields);
  return (
    <>
      {unplaced.length > 0 && (
        <div className="state error" role="alert">
          {unplaced.map((text) => (
            <p key={text}>{text}</p>
          ))}
        </div>
      )}
      {notice && issues.size > 0 && unplaced.length === 0 && (
        <p className="error-text" role="alert">
          {notice}
        </p>
      )}
      {failure !== null && <ErrorMessage error={failure} />}
    </>
  );
}

/**
 * A labelled select of `options` after a first, empty choice (`placeholder`), tied to the faults of
 * `field`; `children` go between the select and the faults (a note on the choice).
 */
export function SelectField({
  label,
  field,
  issues,
  value,
  onChange,
  placeholder,
  options,
  disabled,
  children,
}: {
  label: string;
  field: string;
  issues: ReadonlyMap<string, string[]>;
  value: string;
  onChange: (value: string) => void;
  placeholder: string;
  options: readonly { value: string; label: string }[];
  disabled?: boolean;
  children?: ReactNode;
}) {
  return (
    <label>
      {label}
      <select value={value} disabled={disabled} {...invalidProps(issues, field)} onChange={(event) => onChange(event.target.value)}>
        <option value="">{placeholder}</option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {children}
      <FieldIssues issues={issues} field={field} />
    </label>
  );
}

/**
 * A group of checkboxes, one per option, whose checked values are `chosen`; with `field`, tied to
 * its faults; `empty` says why there is nothing to check.
 */
export function ChecksField<T extends string>({
  legend,
  options,
  chosen,
  onChange,
  empty,
  issues,
  field,
}: {
  legend: string;
  options: readonly { value: T; label: ReactNode }[];
  chosen: readonly T[];
  onChange: (next: T[]) => void;
  empty?: string;
  issues?: ReadonlyMap<string, string[]>;
  field?: string;
}) {
  return (
    <fieldset className="checks" {...(issues && field ? invalidProps(issues, field) : {})}>
      <legend>{legend}</legend>
      {empty && options.length === 0 && <p className="muted">{empty}</p>}
      {options.map(({ value, label }) => (
        <label key={value}>
          <input
            type="checkbox"
            checked={chosen.includes(value)}
            onChange={() => onChange(chosen.includes(value) ? chosen.filter((other) => other !== value) : [...chosen, value])}
          />
          {label}
        </label>
      ))}
      {issues && field && <FieldIssues issues={issues} field={field} />}
    </fieldset>
  );
}

/** Checkbox options for things with an id and a name, each with a muted note after its name. */
export function namedOptions<T extends { id: string; name: string }>(items: readonly T[], note: (item: T) => string) {
  return items.map((item) => ({
    value: item.id,
    label: (
      <>
        {item.name} <span className="muted">{note(item)}</span>
      </>
    ),
  }));
}
