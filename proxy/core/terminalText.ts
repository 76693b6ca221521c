const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * C0 controls but tab and line feed, DEL and the C1 controls: a terminal acts on them instead of
 * printing them (ECMA-48: CSI moves the cursor and clears the screen, OSC 52 writes the clipboard,
 * OSC 8 makes links, a lone CR returns to overwrite the line).
 */
function isTerminalControl(code: number): boolean {
  return (code < 0x20 && code !== TAB && code !== LINE_FEED) || (code >= 0x7f && code <= 0x9f);
}

/**
 * Text from clients, gateways and models as a terminal should show it: each control written as its
 * `\u001b`-style escape, so a model's answer (a prompt injection can make it emit them) or a
 * gateway's error cannot rewrite what the CLI shows or reach the clipboard. A CR before LF is a
 * line end. JSON stays JSON: such an escape inside a string is the same character.
 */
export function terminalText(text: string): string {
  let shown = '';
  let copiedUpTo = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (!isTerminalControl(code)) continue;
    const lineEnd = code === CARRIAGE_RETURN && text.charCodeAt(index + 1) === LINE_FEED;
    shown += text.slice(copiedUpTo, index) + (lineEnd ? '' : `\\u${code.toString(16).padStart(4, '0')}`);
    copiedUpTo = index + 1;
  }
  return copiedUpTo === 0 ? text : shown + text.slice(copiedUpTo);
}
