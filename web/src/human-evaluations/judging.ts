// Judging by keyboard (docs/ui.md#human-evaluation): what a key does on the judging screen. A/B:
// ← or 1 the left output is better, → or 2 the right one, 3 or G both good, 4 or B both bad;
// single model: Enter saves the score typed; both: N or J next case, P or K previous.

export type JudgeAction = 'left' | 'right' | 'both-good' | 'both-bad' | 'next' | 'previous';

const abKeys: Record<string, JudgeAction> = {
  ArrowLeft: 'left',
  '1': 'left',
  ArrowRight: 'right',
  '2': 'right',
  '3': 'both-good',
  g: 'both-good',
  '4': 'both-bad',
  b: 'both-bad',
};
const moveKeys: Record<string, JudgeAction> = { n: 'next', j: 'next', p: 'previous', k: 'previous' };

/**
 * The action of a key, or null. Keys typed into a field (a score, the judge's name) are the
 * field's; modified keys stay the browser's.
 */
export function judgeAction(
  key: string,
  /** The evaluation's type: HUMAN_A_B_TESTING or SINGLE_MODEL_TEST. */
  type: string,
  context: { inField: boolean; modified: boolean },
): JudgeAction | null {
  if (context.modified || context.inField) return null;
  const lower = key.length === 1 ? key.toLowerCase() : key;
  if (lower in moveKeys) return moveKeys[lower];
  if (type === 'HUMAN_A_B_TESTING' && lower in abKeys) return abKeys[lower];
  return null;
}

/** The vote an A/B action sends: the preferred variant's global id, "1" both good, "0" both bad. */
export function voteFor(action: JudgeAction, shownVariantIds: readonly string[]): string | null {
  if (action === 'left') return shownVariantIds[0] ?? null;
  if (action === 'right') return shownVariantIds[1] ?? null;
  if (action === 'both-good') return '1';
  if (action === 'both-bad') return '0';
  return null;
}

/** A 0–100 score typed as text; null when it is not one. */
export function parseScore(text: string): number | null {
  if (!/^\s*\d{1,3}\s*$/.test(text)) return null;
  const score = Number(text);
  return score <= 100 ? score : null;
}

/** Per judge, how many of the scenarios they judged (a vote or a score), in name order. */
export function judgeProgress(scenarios: readonly { judgements: readonly { judge: string; vote?: string | null; score?: number | null }[] }[]): {
  judge: string;
  judged: number;
}[] {
  const counts = new Map<string, number>();
  for (const scenario of scenarios) {
    for (const judgement of scenario.judgements) {
      if (judgement.vote == null && judgement.score == null) continue;
      counts.set(judgement.judge, (counts.get(judgement.judge) ?? 0) + 1);
    }
  }
  return [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([judge, judged]) => ({ judge, judged }));
}
