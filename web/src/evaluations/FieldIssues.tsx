// A refused input's faults beside their fields (docs/ui.md#forms): the API's 422 `loc`s, keyed as
// issuesByField keys them, shown under the field whose key they are or start with.
import type { ReactNode } from 'react';

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
