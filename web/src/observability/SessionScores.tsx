// A session's scores (docs/sessions.md#in-the-ui): as short chips in the session list, and as a
// table on the session page. Giving a score is the score panel's (docs/scores.md).
import { graphql, useFragment } from 'react-relay';
import type { SessionScoreChips_session$key } from '../__generated__/SessionScoreChips_session.graphql.ts';
import type { SessionScores_session$key } from '../__generated__/SessionScores_session.graphql.ts';
import { Empty } from '../components/states.tsx';
import { formatTime } from '../format.ts';
import { ScoreSource } from '../scores/ScoreSource.tsx';

const chipsFragment = graphql`
  fragment SessionScoreChips_session on Session {
    scores {
      id
      name
      dataType
      value
      stringValue
    }
  }
`;

const tableFragment = graphql`
  fragment SessionScores_session on Session {
    scores {
      id
      name
      dataType
      value
      stringValue
      comment
      source
      metadata
      authorLabel
      updatedAt
    }
  }
`;

/** What a score says in a few characters: a number, a label, or the start of a text. */
export function scoreValue(score: { dataType: string; value: number | null | undefined; stringValue: string | null | undefined }): string {
  if (score.dataType === 'NUMERIC') return score.value == null ? '–' : String(Math.round(score.value * 1000) / 1000);
  const text = score.stringValue ?? (score.value == null ? '–' : String(score.value));
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

export function SessionScoreChips({ session: sessionRef }: { session: SessionScoreChips_session$key }) {
  const { scores } = useFragment(chipsFragment, sessionRef);
  if (scores.length === 0) return <span className="muted">–</span>;
  return (
    <span className="score-chips">
      {scores.map((score) => (
        <span key={score.id} className="badge">
          {score.name}: {scoreValue(score)}
        </span>
      ))}
    </span>
  );
}

export function SessionScores({ session: sessionRef }: { session: SessionScores_session$key }) {
  const { scores } = useFragment(tableFragment, sessionRef);
  return (
    <section aria-label="Scores of the session">
      <h2>Scores</h2>
      {scores.length === 0 ? (
        <Empty title="No scores yet">Scores sent for this session (POST /scores with its session_id) show here.</Empty>
      ) : (
        <table className="traces">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Value</th>
              <th scope="col">Comment</th>
              <th scope="col">Source</th>
              <th scope="col">By</th>
              <th scope="col">When</th>
            </tr>
          </thead>
          <tbody>
            {scores.map((score) => (
              <tr key={score.id}>
                <td>{score.name}</td>
                <td>{scoreValue(score)}</td>
                <td>{score.comment ?? ''}</td>
                <td>
                  <ScoreSource source={score.source} metadata={score.metadata} />
                </td>
                <td>{score.authorLabel ?? ''}</td>
                <td>{formatTime(score.updatedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
