// The fields of an evaluator's settings form, built from its template (settings.ts): one control
// per type, labelled, with its description and the API's faults beside it (docs/ui.md#evaluator-configs).
import { FieldIssues, invalidProps, issueId } from '../components/forms.tsx';
import type { Draft, Message, Setting } from './settings.ts';

const roles = ['system', 'user', 'assistant'];

function MessagesField({
  setting,
  value,
  onChange,
  issues,
}: {
  setting: Setting;
  value: Message[];
  onChange: (next: Message[]) => void;
  issues: ReadonlyMap<string, string[]>;
}) {
  const field = `settings_values.${setting.name}`;
  const set = (index: number, change: Partial<Message>) => onChange(value.map((message, at) => (at === index ? { ...message, ...change } : message)));
  return (
    <fieldset className="messages-field" {...invalidProps(issues, field)}>
      <legend>{setting.label}</legend>
      <p className="muted small">{setting.description}</p>
      {value.map((message, index) => (
        <div className="message-edit" key={index}>
          <label>
            Role of message {index + 1}
            <select value={message.role} onChange={(event) => set(index, { role: event.target.value })}>
              {roles.map((role) => (
                <option key={role}>{role}</option>
              ))}
            </select>
          </label>
          <label>
            Content of message {index + 1}
            <textarea rows={3} value={message.content} onChange={(event) => set(index, { content: event.target.value })} />
          </label>
          <button type="button" onClick={() => onChange(value.filter((_, at) => at !== index))}>
            Remove message {index + 1}
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onChange([...value, { role: 'user', content: '' }])}>
        Add a message
      </button>
      <FieldIssues issues={issues} field={field} />
    </fieldset>
  );
}

/** The props tying a control to its label, its description and its faults. */
function controlProps(issues: ReadonlyMap<string, string[]>, field: string) {
  const invalid = invalidProps(issues, field);
  const hint = `hint-${issueId(field)}`;
  return { id: `control-${issueId(field)}`, ...invalid, 'aria-describedby': [hint, invalid['aria-describedby']].filter(Boolean).join(' ') };
}

export function SettingsForm({
  template,
  draft,
  onChange,
  issues,
}: {
  template: readonly Setting[];
  draft: Draft;
  onChange: (next: Draft) => void;
  issues: ReadonlyMap<string, string[]>;
}) {
  const set = (name: string, value: Draft[string]) => onChange({ ...draft, [name]: value });
  return (
    <>
      {template.map((setting) => {
        const field = `settings_values.${setting.name}`;
        const value = draft[setting.name];
        if (setting.type === 'MESSAGES')
          return <MessagesField key={setting.name} setting={setting} value={value as Message[]} onChange={(next) => set(setting.name, next)} issues={issues} />;
        const props = controlProps(issues, field);
        const text = typeof value === 'string' ? value : '';
        const control =
          setting.type === 'BOOLEAN' ? (
            <input type="checkbox" checked={value === true} {...props} onChange={(event) => set(setting.name, event.target.checked)} />
          ) : setting.type === 'MULTIPLE_CHOICE' ? (
            <select value={text} {...props} onChange={(event) => set(setting.name, event.target.value)}>
              <option value="">Choose</option>
              {(setting.options ?? []).map((option) => (
                <option key={option}>{option}</option>
              ))}
            </select>
          ) : setting.type === 'CODE' ? (
            <textarea className="code" rows={8} spellCheck={false} value={text} {...props} onChange={(event) => set(setting.name, event.target.value)} />
          ) : (
            <input
              className={setting.type === 'REGEX' ? 'code' : undefined}
              type={setting.type === 'URL' ? 'url' : 'text'}
              inputMode={setting.type === 'NUMBER' ? 'decimal' : undefined}
              spellCheck={setting.type === 'STRING'}
              value={text}
              {...props}
              onChange={(event) => set(setting.name, event.target.value)}
            />
          );
        return (
          <div key={setting.name} className={`field${setting.type === 'BOOLEAN' ? ' check' : ''}`}>
            {setting.type === 'BOOLEAN' && control}
            <label htmlFor={props.id}>
              {setting.label}
              {setting.required ? ' (required)' : ''}
            </label>
            {setting.type !== 'BOOLEAN' && control}
            <span className="muted small" id={`hint-${issueId(field)}`}>
              {setting.description}
              {setting.type === 'NUMBER' && (setting.min != null || setting.max != null) ? ` (${setting.min ?? '…'} to ${setting.max ?? '…'})` : ''}
            </span>
            <FieldIssues issues={issues} field={field} />
          </div>
        );
      })}
    </>
  );
}
