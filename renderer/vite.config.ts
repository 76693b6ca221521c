import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The proxy serves the built window under /_airlock/ (see proxy/app/control/staticUi.ts); hashed
// asset names let it cache them forever while index.html is always revalidated.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/_airlock/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1024,
  },
});
