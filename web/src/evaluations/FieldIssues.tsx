// A refused input's faults beside their fields (docs/ui.md#forms): the API's 422 `loc`s, keyed as
// issuesByField keys them, shown under the field whose key they are or start with.
import { useState, type ReactNode } from 'react';
import { ApiError } from '../relay.ts';
import { ErrorMessage } from '../ui.tsx';
import { issuesByField } from './results.ts';

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
