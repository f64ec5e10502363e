// How figures read on screen: seconds, dollars, token counts and times.

export function formatDuration(seconds: number | null | undefined): string {
  if (seconds == null) return '–';
  if (seconds < 0.001) return `${Math.round(seconds * 1_000_000)} µs`;
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 2 : 1)} s`;
  return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}

export function formatCost(usd: number | null | undefined): string {
  if (usd == null) return '–';
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${usd.toPrecision(2)}`;
  return `$${usd.toFixed(2)}`;
}

export function formatCount(value: number | null | undefined): string {
  return value == null ? '–' : value.toLocaleString('en-US');
}

export function formatPercent(share: number | null | undefined): string {
  return share == null ? '–' : `${(share * 100).toFixed(share < 0.1 && share > 0 ? 1 : 0)}%`;
}

export function formatTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}
