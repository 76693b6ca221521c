/** What a misrouted reverse proxy answers: docs/gateway-spec.md §7, "HTML instead of JSON". */
export function notFoundPage(path: string): string {
  return [
    '<!DOCTYPE html>',
    '<html><head><title>404 Not Found</title></head>',
    '<body><center><h1>404 Not Found</h1></center>',
    `<hr><center>nginx</center><!-- ${escapeHtml(path)} --></body></html>`,
    '',
  ].join('\n');
}

/** A 200 HTML page, as when a base URL points at the website instead of the API. */
export function websitePage(): string {
  return '<!DOCTYPE html>\n<html><head><title>Model Gateway</title></head><body><h1>One key, many models</h1></body></html>\n';
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"'-]/g, (character) => `&#${character.charCodeAt(0)};`);
}
