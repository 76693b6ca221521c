/**
 * Whether a body that did not parse is a JSON object or array cut short: what a relay sends when it
 * ends its own body in order after its copy of the provider's answer broke (wso2/api-manager#5231),
 * as against a body that is no JSON at all (a web page, a maintenance text) or JSON wrong inside.
 * V8's JSON.parse tells the two apart: a text that is a prefix of valid JSON fails at its very end,
 * with "Unexpected end of JSON input" or an error "at position" of the text's length; any other
 * fault is reported where it is. test/unit/forward/cutShortJson.test.ts holds V8 to it.
 */
export function isCutShortJson(text: string): boolean {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return false;
  try {
    JSON.parse(trimmed);
    return false;
  } catch (error) {
    const message = (error as Error).message;
    if (message.startsWith('Unexpected end of JSON input')) return true;
    const position = /at position (\d+)/.exec(message)?.[1];
    return position !== undefined && Number(position) >= trimmed.length;
  }
}
