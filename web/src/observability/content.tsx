// Values shown for people (docs/ui.md#span-details): JSON folded (nodes open on demand, so a large
// payload costs nothing until opened), long text cut with a button to show all, chat messages as
// a conversation.
import { useId, useState } from 'react';
import { conversationOf } from './messages.ts';

/** Characters of a text shown before "Show all". */
export const TEXT_PREVIEW = 600;

export function LongText({ text }: { text: string }) {
  const [expanded, setExpanded] = useState(false);
  const id = useId();
  const long = text.length > TEXT_PREVIEW;
  return (
    <div className="long-text">
      <pre id={id}>{long && !expanded ? `${text.slice(0, TEXT_PREVIEW)}…` : text}</pre>
      {long && (
        <button type="button" className="link-button" aria-controls={id} aria-expanded={expanded} onClick={() => setExpanded(!expanded)}>
          {expanded ? 'Show less' : `Show all (${text.length.toLocaleString('en-US')} characters)`}
        </button>
      )}
    </div>
  );
}

function summary(value: object): string {
  return Array.isArray(value)
    ? `[${value.length} item${value.length === 1 ? '' : 's'}]`
    : `{${Object.keys(value).length} key${Object.keys(value).length === 1 ? '' : 's'}}`;
}

function JsonNode({ name, value, depth }: { name: string | null; value: unknown; depth: number }) {
  const [open, setOpen] = useState(depth < 1);
  const label = name !== null ? <span className="json-key">{name}: </span> : null;
  if (value === null || typeof value !== 'object') {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return (
      <div className="json-leaf">
        {label}
        {typeof value === 'string' && value.length > 120 ? (
          <LongText text={value} />
        ) : (
          <span className={`json-${value === null ? 'null' : typeof value}`}>{typeof value === 'string' ? JSON.stringify(text) : text}</span>
        )}
      </div>
    );
  }
  const entries: [string, unknown][] = Array.isArray(value) ? value.map((item: unknown, i) => [String(i), item]) : Object.entries(value);
  return (
    <details className="json-node" open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>
        {label}
        <span className="json-summary">{summary(value)}</span>
      </summary>
      {open && (
        <div className="json-children">
          {entries.map(([key, item]) => (
            <JsonNode key={key} name={key} value={item} depth={depth + 1} />
          ))}
        </div>
      )}
    </details>
  );
}

export function JsonView({ value }: { value: unknown }) {
  return (
    <div className="json">
      <JsonNode name={null} value={value} depth={0} />
    </div>
  );
}

/** Inputs or outputs: a conversation, a text, or folded JSON. */
export function ContentView({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <p className="muted">None reported.</p>;
  if (typeof value === 'string') return <LongText text={value} />;
  const conversation = conversationOf(value);
  if (!conversation) return <JsonView value={value} />;
  return (
    <div className="conversation">
      {conversation.system !== null && (
        <div className="message message-system">
          <div className="message-role">system</div>
          <LongText text={conversation.system} />
        </div>
      )}
      {conversation.messages.map((message, i) => (
        <div key={i} className={`message message-${message.role.replace(/[^a-z]/gi, '')}`}>
          <div className="message-role">{message.role}</div>
          {message.toolCallId !== null && <div className="tool-call-id">answer to {message.toolCallId}</div>}
          {message.text !== null && <LongText text={message.text} />}
          {message.toolCalls.map((call, j) => (
            <div key={j} className="tool-call">
              <span className="tool-call-name">{call.name}</span>
              {call.id !== null && <span className="tool-call-id"> {call.id}</span>}
              <LongText text={call.arguments} />
            </div>
          ))}
          {message.rest && <JsonView value={message.rest} />}
        </div>
      ))}
      {conversation.rest && <JsonView value={conversation.rest} />}
    </div>
  );
}
