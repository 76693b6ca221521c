import { describe, expect, it } from 'vitest';
import { terminalText } from '../../../proxy/core/terminalText.ts';

describe('terminalText', () => {
  it.each([
    ['plain text, tabs and line feeds stay', 'a\tb\nc', 'a\tb\nc'],
    ['CRLF line ends become LF', 'one\r\ntwo', 'one\ntwo'],
    ['a lone CR is shown, not obeyed', 'shown\rhidden', String.raw`shown\u000dhidden`],
    ['an escape sequence is shown', '\u001b[31mred', String.raw`\u001b[31mred`],
    ['an OSC clipboard write ending in BEL is shown', '\u001b]52;c;eA==\u0007', String.raw`\u001b]52;c;eA==\u0007`],
    ['DEL and the 8-bit CSI are shown', '\u007f\u009b2J', String.raw`\u007f\u009b2J`],
    ['text outside ASCII stays', 'été 😀 中文', 'été 😀 中文'],
  ])('%s', (_name, text, expected) => {
    expect(terminalText(text)).toBe(expected);
  });

  it('keeps JSON the same JSON', () => {
    const json = JSON.stringify({ answer: 'x\u009by\u007f\u001b' });
    expect(JSON.parse(terminalText(json))).toEqual(JSON.parse(json));
  });
});
