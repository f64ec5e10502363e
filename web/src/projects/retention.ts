// How long a project keeps its traces, as the Projects screen reads and enters it
// (docs/ui.md#administration).

/** A retention field's value: days, or null (keep forever) when left empty. */
export function retentionDays(value: string): number | null {
  return value.trim() === '' ? null : Number(value);
}

/** How long a project keeps its traces, for people. */
export function retentionText(days: number | null): string {
  if (days === null) return 'forever (or the instance default)';
  return days === 1 ? '1 day' : `${days} days`;
}
