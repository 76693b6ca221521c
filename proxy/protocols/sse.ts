/** One complete Server-Sent Events frame: a named event and its JSON data, ending in a blank line. */
export function sseFrame(eventName: string, data: unknown): string {
  return `event: ${eventName}\ndata: ${JSON.stringify(data)}\n\n`;
}
