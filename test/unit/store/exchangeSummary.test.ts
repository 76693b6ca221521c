import { describe, expect, it } from 'vitest';
import { exchangeSummary, parseBody, SUMMARY_MAX_CHARS } from '../../../proxy/store/write/exchangeSummary.ts';

const json = (value: unknown) => JSON.stringify(value);
const none = { responseBody: null, streamText: null };

describe('a row summary', () => {
  it.each<[string, { requestBody: string | null; responseBody: string | null; streamText: string | null }, string | null]>([
    [
      'chat: the last user message, first line',
      {
        ...none,
        requestBody: json({
          messages: [
            { role: 'user', content: 'old' },
            { role: 'assistant', content: 'x' },
            { role: 'user', content: '\n  Fix the test\nthen run it' },
          ],
        }),
      },
      'Fix the test',
    ],
    [
      'chat: text parts of a content list',
      {
        ...none,
        requestBody: json({
          messages: [
            {
              role: 'user',
              content: [
                { type: 'image_url', image_url: {} },
                { type: 'text', text: 'What is this?' },
              ],
            },
          ],
        }),
      },
      'What is this?',
    ],
    [
      'Messages: a user turn of tool results only is skipped for the last one with text',
      {
        ...none,
        requestBody: json({
          system: 'be brief',
          messages: [
            { role: 'user', content: [{ type: 'text', text: 'Read the file' }] },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'data' }] },
          ],
        }),
      },
      'Read the file',
    ],
    // Claude Code puts <system-reminder> blocks for the model into user messages, before the prompt
    // and in tool results (anthropics/claude-code#52018, #17601): they are not what the user wrote.
    [
      "Messages: Claude Code's reminder blocks before the prompt are not the prompt",
      {
        ...none,
        requestBody: json({
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: '<system-reminder>\nAvailable agent types: ...\n</system-reminder>' },
                { type: 'text', text: '<system-reminder>\nSkills: ...\n</system-reminder>\n\nFix the flaky test' },
              ],
            },
          ],
        }),
      },
      'Fix the flaky test',
    ],
    [
      'Messages: a tool-result turn whose only text is a reminder is skipped for the prompt before it',
      {
        ...none,
        requestBody: json({
          messages: [
            { role: 'user', content: [{ type: 'text', text: 'Read the file' }] },
            {
              role: 'user',
              content: [
                { type: 'tool_result', tool_use_id: 't', content: 'data' },
                { type: 'text', text: '<system-reminder>The task tools have not been used.</system-reminder>' },
              ],
            },
          ],
        }),
      },
      'Read the file',
    ],
    ['Responses: a string input', { ...none, requestBody: json({ input: 'Summarise this repo' }) }, 'Summarise this repo'],
    [
      'Responses: input items',
      { ...none, requestBody: json({ input: [{ role: 'user', content: [{ type: 'input_text', text: 'Plan the change' }] }] }) },
      'Plan the change',
    ],
    [
      'no user text: the streamed answer',
      { requestBody: json({ messages: [{ role: 'system', content: 's' }] }), responseBody: null, streamText: 'Hello there\nmore' },
      'Hello there',
    ],
    [
      'a cut request body: the chat answer',
      {
        requestBody: '{"messages": [{"role": "user", "content": "tru',
        responseBody: json({ choices: [{ message: { content: 'Answer line' } }] }),
        streamText: null,
      },
      'Answer line',
    ],
    [
      'Messages answer',
      { requestBody: null, responseBody: json({ content: [{ type: 'text', text: 'From Claude' }] }), streamText: null },
      'From Claude',
    ],
    ['nothing readable', { requestBody: 'not json', responseBody: null, streamText: null }, null],
  ])('%s', (_name, parts, expected) => {
    expect(exchangeSummary({ request: parseBody(parts.requestBody), responseBody: parts.responseBody, streamText: parts.streamText })).toBe(
      expected,
    );
  });

  it(`cuts a long line to ${SUMMARY_MAX_CHARS} characters with an ellipsis`, () => {
    const summary = exchangeSummary({ request: { input: 'a'.repeat(500) }, responseBody: null, streamText: null });
    expect(summary).toHaveLength(SUMMARY_MAX_CHARS);
    expect(summary?.endsWith('…')).toBe(true);
  });
});
