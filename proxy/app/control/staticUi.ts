import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type RequestHandler, type Router } from 'express';

/** Where `npm run build:renderer` puts the window. */
export const DEFAULT_UI_DIR = fileURLToPath(new URL('../../../renderer/dist', import.meta.url));

/** Scripts and styles only from our own origin: nothing inline, nothing injected. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Security headers for everything under the control prefix (pages and API alike). */
export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  // The login URL carries its code in the fragment, which is never sent; no referrer leaks the page either.
  res.setHeader('Referrer-Policy', 'no-referrer');
  next();
};

/**
 * Serves the built window: hashed assets cached for a year, index.html always revalidated so a
 * new build is picked up. `/` and `/login` both answer with index.html (the app reads the fragment).
 */
export function createStaticUi(uiDir: string = DEFAULT_UI_DIR): Router {
  const router = express.Router();
  const indexPath = path.join(uiDir, 'index.html');

  router.use('/assets', express.static(path.join(uiDir, 'assets'), { immutable: true, maxAge: '365d', index: false, fallthrough: false }));
  const sendIndex: RequestHandler = (_req, res) => {
    if (!existsSync(indexPath)) {
      res.status(503).type('text/plain').send('The Airlock window is not built. Run `npm run build:renderer`, then reload this page.');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(indexPath);
  };
  router.get(['/', '/login'], sendIndex);
  return router;
}
