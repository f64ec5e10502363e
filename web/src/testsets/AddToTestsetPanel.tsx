// The "Add to test set" button and the form it opens (AddToTestset.tsx), one piece for every place
// that offers it: the trace page, the trace list's selection, a session, evaluation results
// (docs/ui.md#add-to-test-set). The form loads the test sets when first opened.
import { Suspense, useState } from 'react';
import { ErrorBoundary, Loading } from '../components/states.tsx';
import { AddToTestset, type SpanSelection } from './AddToTestset.tsx';

export function AddToTestsetPanel({ projectId, selection, label = 'Add to test set' }: { projectId: string; selection: SpanSelection | null; label?: string }) {
  const [adding, setAdding] = useState(false);
  return (
    <section aria-label="Add to test set" className="add-to-testset-panel">
      <button type="button" aria-expanded={adding && selection !== null} disabled={selection === null} onClick={() => setAdding(!adding)}>
        {label}
      </button>
      {adding && selection && (
        <ErrorBoundary resetKey={JSON.stringify(selection)}>
          <Suspense fallback={<Loading label="Loading the test sets…" />}>
            <AddToTestset projectId={projectId} selection={selection} />
          </Suspense>
        </ErrorBoundary>
      )}
    </section>
  );
}
