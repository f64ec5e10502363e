// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { issuesByField } from '../components/forms.tsx';
import { initialDraft, settingsValues, type Draft, type Setting } from './settings.ts';
import { SettingsForm } from './SettingsForm.tsx';
import { uploadType } from '../testsets/upload.ts';
import { revisionDiff } from '../apps/revisions.ts';

afterEach(cleanup);

const setting = (name: string, type: string, extra: Partial<Setting> = {}): Setting => ({
  name,
  label: name.replace(/_/g, ' '),
  description: `what ${name} does`,
  type,
  required: false,
  default: null,
  ...extra,
});

// One field of every type a template has.
const template: Setting[] = [
  setting('substring', 'STRING', { required: true }),
  setting('regex_pattern', 'REGEX', { default: '^a' }),
  setting('code', 'CODE'),
  setting('webhook_url', 'URL'),
  setting('threshold', 'NUMBER', { default: 0.5, min: 0, max: 1 }),
  setting('case_sensitive', 'BOOLEAN', { default: true }),
  setting('prompt_template', 'MESSAGES', { default: [{ role: 'system', content: 'Judge it.' }] }),
  setting('runtime', 'MULTIPLE_CHOICE', { default: 'javascript', options: ['javascript', 'python'] }),
];

let latest: Draft = {};
function Harness({ issues = new Map<string, string[]>() }: { issues?: Map<string, string[]> }) {
  const [draft, setDraft] = useState(() => initialDraft(template));
  latest = draft;
  return <SettingsForm template={template} draft={draft} onChange={setDraft} issues={issues} />;
}

describe('the settings form', () => {
  it('starts from the defaults, one labelled control per type', () => {
    render(<Harness />);
    expect(screen.getByLabelText<HTMLInputElement>('substring (required)').value).toBe('');
    expect(screen.getByLabelText<HTMLInputElement>('regex pattern').value).toBe('^a');
    expect(screen.getByLabelText('code').tagName).toBe('TEXTAREA');
    expect(screen.getByLabelText<HTMLInputElement>('webhook url').type).toBe('url');
    expect(screen.getByLabelText<HTMLInputElement>('threshold').value).toBe('0.5');
    expect(screen.getByText('what threshold does (0 to 1)')).toBeTruthy();
    expect(screen.getByLabelText<HTMLInputElement>('case sensitive').checked).toBe(true);
    expect(screen.getByLabelText<HTMLTextAreaElement>('Content of message 1').value).toBe('Judge it.');
    expect(screen.getByLabelText<HTMLSelectElement>('runtime').value).toBe('javascript');
  });

  it('turns edits into the values the API takes: numbers parsed, empty fields left for the API', () => {
    render(<Harness />);
    fireEvent.change(screen.getByLabelText('threshold'), { target: { value: '0.8' } });
    fireEvent.click(screen.getByLabelText('case sensitive'));
    fireEvent.click(screen.getByRole('button', { name: 'Add a message' }));
    fireEvent.change(screen.getByLabelText('Role of message 2'), { target: { value: 'user' } });
    fireEvent.change(screen.getByLabelText('Content of message 2'), { target: { value: '{output}' } });
    fireEvent.change(screen.getByLabelText('runtime'), { target: { value: 'python' } });
    expect(settingsValues(template, latest)).toEqual({
      regex_pattern: '^a',
      threshold: 0.8,
      case_sensitive: false,
      prompt_template: [
        { role: 'system', content: 'Judge it.' },
        { role: 'user', content: '{output}' },
      ],
      runtime: 'python',
    });
    // Not a number: sent as typed, so the API refuses it by name.
    fireEvent.change(screen.getByLabelText('threshold'), { target: { value: 'high' } });
    fireEvent.click(screen.getByRole('button', { name: 'Remove message 1' }));
    expect(settingsValues(template, latest)).toMatchObject({ threshold: 'high', prompt_template: [{ role: 'user', content: '{output}' }] });
  });

  it("shows the API's 422 faults beside their fields", () => {
    const issues = issuesByField([
      { loc: ['body', 'settings_values', 'substring'], msg: 'Field required', type: 'missing' },
      { loc: ['body', 'settings_values', 'prompt_template', 0, 'role'], msg: 'Input should be system, user or assistant', type: 'enum' },
    ]);
    render(<Harness issues={issues} />);
    const substring = screen.getByLabelText('substring (required)');
    expect(substring.getAttribute('aria-invalid')).toBe('true');
    expect(
      substring
        .getAttribute('aria-describedby')!
        .split(' ')
        .map((id) => document.getElementById(id)!.textContent),
    ).toEqual(['what substring does', 'Field required']);
    expect(screen.getByRole('group', { name: 'prompt template' }).textContent).toContain('Input should be system, user or assistant');
    expect(screen.getByLabelText('threshold').getAttribute('aria-invalid')).toBeNull();
  });

  it('reads a saved config back into the form', () => {
    expect(initialDraft(template, { substring: 'x', threshold: 1, case_sensitive: false })).toMatchObject({
      substring: 'x',
      threshold: '1',
      case_sensitive: false,
    });
  });
});

describe('revision diffs and uploads', () => {
  it('diffs two revisions by lines of their JSON, keys in order', () => {
    const changes = revisionDiff({ parameters: { temperature: 0.2, model: 'a' }, uri: null }, { parameters: { model: 'a', temperature: 0.7 }, uri: null });
    expect(changes.filter((change) => change.removed).map((change) => change.value.trim())).toEqual(['"temperature": 0.2']);
    expect(changes.filter((change) => change.added).map((change) => change.value.trim())).toEqual(['"temperature": 0.7']);
    expect(revisionDiff({ parameters: { a: 1 } }, { parameters: { a: 1 } }).every((change) => !change.added && !change.removed)).toBe(true);
  });

  it('knows a CSV from a JSON file', () => {
    expect(uploadType({ name: 'cases.CSV', type: '' })).toBe('CSV');
    expect(uploadType({ name: 'cases', type: 'application/json' })).toBe('JSON');
    expect(uploadType({ name: 'cases.txt', type: 'text/plain' })).toBeNull();
  });
});
