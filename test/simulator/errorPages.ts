/**
 * HTML error pages from what sits in front of a gateway, with the headers that come with them.
 * - nginx answers its own errors (401, 403, 404, 502, 504…) with a small page titled
 *   "<status> <reason>" and signed "nginx" (src/http/ngx_http_special_response.c), `server: nginx`.
 * - Cloudflare answers with a branded page naming the error and a Ray ID, with `server: cloudflare`
 *   and the same id in `cf-ray`: https://developers.cloudflare.com/fundamentals/reference/cloudflare-ray-id/,
 *   https://developers.cloudflare.com/support/troubleshooting/http-status-codes/cloudflare-5xx-errors/,
 *   and a 502 page that never reached the API: https://github.com/orgs/supabase/discussions/52588
 */

export type ErrorPageServer = 'nginx' | 'cloudflare';

export interface ErrorPage {
  headers: Record<string, string>;
  html: string;
}

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  413: 'Request Entity Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Temporarily Unavailable',
  504: 'Gateway Time-out',
  520: 'Web server is returning an unknown error',
  522: 'Connection timed out',
  524: 'A timeout occurred',
};

export function errorPage(server: ErrorPageServer, status: number, rayId: string): ErrorPage {
  const reason = REASONS[status] ?? 'Error';
  if (server === 'nginx') {
    return {
      headers: { server: 'nginx' },
      html: `<html>\r\n<head><title>${status} ${reason}</title></head>\r\n<body>\r\n<center><h1>${status} ${reason}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`,
    };
  }
  const ray = `${rayId}-LAX`;
  return {
    headers: { server: 'cloudflare', 'cf-ray': ray },
    html: [
      '<!DOCTYPE html>',
      `<html lang="en-US"><head><title>gateway.example | ${status}: ${reason}</title></head>`,
      `<body><div id="cf-error-details"><h1><span class="cf-error-type">Error</span> <span class="cf-error-code">${status}</span></h1>`,
      `<h2 class="cf-subheadline">${reason}</h2>`,
      `<p>Cloudflare Ray ID: <strong>${rayId}</strong> &bull; Performance &amp; security by Cloudflare</p></div></body></html>`,
      '',
    ].join('\n'),
  };
}

/** A Ray ID is 16 hex digits; derived from the request's sequence so tests can predict it. */
export function rayIdFor(sequence: string): string {
  return Buffer.from(sequence).toString('hex').padStart(16, '0').slice(-16);
}
