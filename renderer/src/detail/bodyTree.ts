/** A body as the body panel shows it: its value for the tree (null when it is no JSON object or array) and the Raw view's text. */
export interface BodyTree {
  json: object | null;
  /** Pretty JSON when the body is JSON, otherwise the body as it is. */
  pretty: string;
  /** The text does not parse as JSON (a client's malformed body, or one cut when logged): shown as text and said so. */
  notJson: boolean;
}

/** Reads a body for the body panel. Pure: a large body is read in the body worker (bodyReader.ts). */
export function readBodyTree(text: string): BodyTree {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { json: null, pretty: text, notJson: true };
  }
  return { json: typeof value === 'object' && value !== null ? value : null, pretty: JSON.stringify(value, null, 2), notJson: false };
}
