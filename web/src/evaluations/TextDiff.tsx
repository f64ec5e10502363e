// A text diff of two outputs with jsdiff (npm `diff`): by words on one line, by lines when either
// text has several; removed text struck through, added text underlined, each named for screen readers.
import { diffLines, diffWords } from 'diff';
import { useMemo } from 'react';

/** The parts of `before` → `after`, each kept, added or removed. */
export function textDiff(before: string, after: string): DiffPart[] {
  const changes = before.includes('\n') || after.includes('\n') ? diffLines(before, after) : diffWords(before, after);
  return changes.map((change) => ({ value: change.value, added: Boolean(change.added), removed: Boolean(change.removed) }));
}

export interface DiffPart {
  value: string;
  added: boolean;
  removed: boolean;
}

/** Diff parts as marked text: removed struck through, added underlined, each named for screen readers. */
export function DiffParts({ parts }: { parts: readonly DiffPart[] }) {
  return parts.map((part, index) =>
    part.added ? (
      <ins key={index}>
        <span className="visually-hidden">[added: </span>
        {part.value}
        <span className="visually-hidden">]</span>
      </ins>
    ) : part.removed ? (
      <del key={index}>
        <span className="visually-hidden">[removed: </span>
        {part.value}
        <span className="visually-hidden">]</span>
      </del>
    ) : (
      <span key={index}>{part.value}</span>
    ),
  );
}

export function TextDiff({ before, after, label }: { before: string; after: string; label: string }) {
  const parts = useMemo(() => textDiff(before, after), [before, after]);
  return (
    <div className="text-diff" role="group" aria-label={label}>
      <DiffParts parts={parts} />
    </div>
  );
}
