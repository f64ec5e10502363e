// The keys a screen takes, as a definition list (the score panel's, the review screen's).
export function KeyList({ keys }: { keys: readonly { keys: string; does: string }[] }) {
  return (
    <dl>
      {keys.map((item) => (
        <div key={item.keys}>
          <dt>
            <kbd>{item.keys}</kbd>
          </dt>
          <dd>{item.does}</dd>
        </div>
      ))}
    </dl>
  );
}
