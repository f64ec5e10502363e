// How prices read and are entered on the Prices screen (docs/ui.md#administration).

/** A number field's value, or undefined when left empty (the API then applies its default). */
export function optionalNumber(value: string): number | undefined {
  return value.trim() === '' ? undefined : Number(value);
}

/** When a price starts: "always" for the epoch, the UTC day for a date (prices start at midnight UTC). */
export function effectiveText(iso: string): string {
  const at = new Date(iso);
  if (at.getTime() <= 0) return 'always';
  const midnight = at.getUTCHours() === 0 && at.getUTCMinutes() === 0 && at.getUTCSeconds() === 0;
  if (midnight) return at.toLocaleDateString(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
  return `${at.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })} UTC`;
}
