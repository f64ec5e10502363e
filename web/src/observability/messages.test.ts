import { describe, expect, it } from 'vitest';
import { contentPreview, conversationOf, exceptionsOf, PREVIEW_LENGTH, soleText } from './messages.ts';

describe('conversationOf', () => {
  it('reads stored chat messages, system instructions and text parts', () => {
    const conversation = conversationOf({
      messages: [
        { role: 'user', content: 'Capital of France?' },
        {
          role: 'assistant',
          parts: [
            { type: 'text', content: 'Par' },
            { type: 'text', content: 'is' },
          ],
        },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '{"found":true}' },
        { role: 'assistant', content: null, tool_calls: [{ unknown: 'shape' }] },
      ],
      system_instructions: [{ type: 'text', content: 'Be terse.' }],
      temperature: 0,
    });
    expect(conversation).toEqual({
      system: 'Be terse.',
      messages: [
        { role: 'user', text: 'Capital of France?', toolCalls: [], toolCallId: null, rest: null },
        { role: 'assistant', text: 'Paris', toolCalls: [], toolCallId: null, rest: null },
        { role: 'assistant', text: null, toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' }], toolCallId: null, rest: null },
        { role: 'tool', text: '{"found":true}', toolCalls: [], toolCallId: 'call_1', rest: null },
        { role: 'assistant', text: null, toolCalls: [], toolCallId: null, rest: { content: null, tool_calls: [{ unknown: 'shape' }] } },
      ],
      rest: { temperature: 0 },
    });
  });

  it('takes a bare list of messages, and nothing that is not one', () => {
    expect(conversationOf([{ role: 'user', content: 'hi' }])?.messages).toHaveLength(1);
    for (const value of [null, 'text', { question: 'x' }, { messages: [] }, { messages: [{ content: 'no role' }] }, [1, 2]]) {
      expect(conversationOf(value)).toBeNull();
    }
  });
});

describe('exceptionsOf', () => {
  it("reads OpenTelemetry's exception events and ignores the others", () => {
    const events = [
      { name: 'log', attributes: {} },
      {
        name: 'exception',
        time: '2026-01-01T00:00:00Z',
        attributes: { 'exception.type': 'TimeoutError', 'exception.message': 'took too long', 'exception.stacktrace': 'at x' },
      },
      { name: 'exception' },
    ];
    expect(exceptionsOf(events)).toEqual([
      { type: 'TimeoutError', message: 'took too long', stacktrace: 'at x', time: '2026-01-01T00:00:00Z' },
      { type: null, message: null, stacktrace: null, time: null },
    ]);
    expect(exceptionsOf(null)).toEqual([]);
  });
});

describe('contentPreview', () => {
  it('shows a text, the last said of a conversation, or JSON, in one line cut short', () => {
    expect(contentPreview(null)).toBe('');
    expect(contentPreview('hello\n  there')).toBe('hello there');
    expect(
      contentPreview({
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: 'Hello!' },
        ],
      }),
    ).toBe('assistant: Hello!');
    expect(contentPreview({ input: 'why?' })).toBe('why?');
    expect(soleText({ output: 'because' })).toBe('because');
    expect(soleText({ output: 3 })).toEqual({ output: 3 });
    expect(contentPreview({ question: 'why?', n: 1 })).toBe('{"question":"why?","n":1}');
    expect(contentPreview('x'.repeat(PREVIEW_LENGTH + 5))).toBe(`${'x'.repeat(PREVIEW_LENGTH)}…`);
  });
});
