// A project's retention in the projects screen (docs/ui.md#administration), apart from the
// screen's queries so it renders in a test without Relay.
import type { FormEvent } from 'react';
import { Field, formText } from '../components/forms.tsx';
import { retentionDays } from './retention.ts';

/**
 * A project's retention (docs/observability.md#retention): days a trace is kept after its latest
 * span ends; empty keeps traces forever (or as long as the instance's default says).
 */
export function RetentionForm({
  days,
  saving,
  error,
  onSave,
}: {
  days: number | null;
  saving: boolean;
  error: string | null;
  onSave: (days: number | null) => Promise<void> | void;
}) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void onSave(retentionDays(formText(new FormData(event.currentTarget), 'retention_days')));
  };
  return (
    <form className="inline-fields" onSubmit={submit} aria-label="Retention">
      <Field
        label="Days kept"
        name="retention_days"
        type="number"
        min={1}
        max={3650}
        step={1}
        defaultValue={days ?? ''}
        key={days ?? 'forever'}
        hint="Empty: forever."
        error={error ?? undefined}
      />
      <button type="submit" disabled={saving}>
        Save
      </button>
    </form>
  );
}
