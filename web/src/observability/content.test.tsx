// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ContentView, JsonView, LongText, TEXT_PREVIEW } from './content.tsx';

afterEach(cleanup);

describe('content for people', () => {
  it('cuts long text and shows it all on demand', () => {
    const text = 'x'.repeat(TEXT_PREVIEW + 50);
    render(<LongText text={text} />);
    expect(document.querySelector('pre')!.textContent).toHaveLength(TEXT_PREVIEW + 1);
    const button = screen.getByRole('button', { name: `Show all (${(TEXT_PREVIEW + 50).toLocaleString('en-US')} characters)` });
    expect(button.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(button);
    expect(document.querySelector('pre')!.textContent).toBe(text);
    expect(screen.getByRole('button', { name: 'Show less' }).getAttribute('aria-expanded')).toBe('true');
  });

  it('folds JSON below the top level and renders a node only once opened', () => {
    render(<JsonView value={{ question: 'Capital?', context: { documents: [{ id: 1, text: 'deep value' }] } }} />);
    expect(screen.getByText('"Capital?"')).toBeTruthy();
    expect(screen.getByText('{1 key}')).toBeTruthy();
    expect(screen.queryByText('documents:')).toBeNull();
    const context = screen.getByText('context:').closest('details')!;
    context.open = true;
    fireEvent(context, new Event('toggle'));
    expect(screen.getByText('documents:')).toBeTruthy();
    expect(screen.getByText('[1 item]')).toBeTruthy();
  });

  it('shows chat messages as a conversation, plain text as text, and says when nothing was reported', () => {
    const { unmount } = render(
      <ContentView
        value={{
          messages: [
            { role: 'system', content: 'Be terse.' },
            { role: 'user', content: 'Capital of France?' },
          ],
        }}
      />,
    );
    const roles = [...document.querySelectorAll('.message-role')].map((role) => role.textContent);
    expect(roles).toEqual(['system', 'user']);
    expect(screen.getByText('Capital of France?')).toBeTruthy();
    unmount();
    render(<ContentView value="just text" />);
    expect(screen.getByText('just text').tagName).toBe('PRE');
    cleanup();
    render(<ContentView value={null} />);
    expect(screen.getByText('None reported.')).toBeTruthy();
  });

  it('shows the tool calls of a message as calls, and the call a tool message answers', () => {
    render(
      <ContentView
        value={{
          messages: [
            {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
            },
            { role: 'tool', tool_call_id: 'call_1', content: '{"forecast":"sunny"}' },
          ],
        }}
      />,
    );
    expect(screen.getByText('get_weather').className).toBe('tool-call-name');
    expect(screen.getByText('{"city":"Paris"}').tagName).toBe('PRE');
    expect(screen.getByText('answer to call_1')).toBeTruthy();
    expect(screen.getByText('{"forecast":"sunny"}')).toBeTruthy();
    expect(document.querySelector('.json')).toBeNull();
  });
});
