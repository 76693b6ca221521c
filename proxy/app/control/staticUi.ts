import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';
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

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
const COMPRESSIBLE_ASSET = /\.(?:js|css|svg|json|html)$/;

interface Compressed {
  br: Buffer;
  gzip: Buffer;
}

/**
 * The window's scripts and styles, compressed once when the router is made (off the event loop, in
 * zlib's threads): the files are hashed and never change, so compressing per request would redo the
 * same work on every load. Until a file's copy is ready, or for a client that accepts neither
 * encoding, the plain file is served by express.static after this.
 */
function precompressedAssets(assetsDir: string): RequestHandler {
  const ready = new Map<string, Compressed>();
  const names = existsSync(assetsDir) ? readdirSync(assetsDir).filter((name) => COMPRESSIBLE_ASSET.test(name)) : [];
  for (const name of names) {
    void readFile(path.join(assetsDir, name))
      .then(async (plain) => {
        const [br, gzipped] = await Promise.all([
          brotli(plain, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 9, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: plain.length } }),
          gzipAsync(plain, { level: 9 }),
        ]);
        ready.set(name, { br, gzip: gzipped });
      })
      // A file that cannot be read or compressed is simply served plain.
      .catch(() => undefined);
  }
  return (req, res, next) => {
    const name = req.path.replace(/^\//, '');
    const compressed = ready.get(name);
    res.vary('Accept-Encoding');
    if (!compressed || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    const encoding = req.acceptsEncodings('br', 'gzip');
    if (encoding !== 'br' && encoding !== 'gzip') return next();
    res.setHeader('Content-Encoding', encoding);
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.type(path.extname(name));
    res.send(compressed[encoding]);
  };
}

/**
 * Serves the built window: hashed assets cached for a year, index.html always revalidated so a
 * new build is picked up. `/` and `/login` both answer with index.html (the app reads the fragment).
 */
export function createStaticUi(uiDir: string = DEFAULT_UI_DIR): Router {
  const router = express.Router();
  const indexPath = path.join(uiDir, 'index.html');

  router.use('/assets', precompressedAssets(path.join(uiDir, 'assets')));
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
