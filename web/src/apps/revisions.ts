// The diff of two variant revisions (docs/ui.md#apps-variants-and-evaluator-configs), with jsdiff.
import { diffJson } from 'diff';
import type { DiffPart } from '../evaluations/TextDiff.tsx';

/** Two revisions' parameters and endpoint as a line diff of their JSON (keys sorted by jsdiff's diffJson). */
export function revisionDiff(before: { parameters: unknown; uri?: string | null }, after: { parameters: unknown; uri?: string | null }): DiffPart[] {
  const shape = (revision: { parameters: unknown; uri?: string | null }) => ({ parameters: revision.parameters ?? {}, uri: revision.uri ?? null });
  return diffJson(shape(before), shape(after)).map((change) => ({ value: change.value, added: Boolean(change.added), removed: Boolean(change.removed) }));
}
