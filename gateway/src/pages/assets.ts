// The files every page loads, served by the gateway from the installed packages and from static/
// (no CDN): htmx, uPlot and the pages' own stylesheet and chart script. Nothing is inline, so the
// Content-Security-Policy (script-src 'self') holds.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router } from 'express';

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

/** Every asset by the name pages use, and where it is read from. */
const ASSETS: Record<string, { file: string; type: string }> = {
  'htmx.min.js': {
    file: join(packageDir('htmx.org'), 'dist/htmx.min.js'),
    type: 'application/javascript',
  },
  'uplot.min.js': {
    file: join(packageDir('uplot'), 'dist/uPlot.iife.min.js'),
    type: 'application/javascript',
  },
  'uplot.min.css': { file: join(packageDir('uplot'), 'dist/uPlot.min.css'), type: 'text/css' },
  'pages.css': {
    file: fileURLToPath(new URL('static/pages.css', import.meta.url)),
    type: 'text/css',
  },
  'charts.js': {
    file: fileURLToPath(new URL('static/charts.js', import.meta.url)),
    type: 'application/javascript',
  },
};

export type AssetName = keyof typeof ASSETS;

/** They change only with a deploy, and hold no partner data. */
const CACHE = 'public, max-age=3600';

/** GET `${prefix}/<name>` for each asset. */
export function assetRoutes(prefix: string): Router {
  const router = Router();
  for (const [name, asset] of Object.entries(ASSETS)) {
    router.get(`${prefix}/${name}`, (_req, res, next) => {
      res.set('Cache-Control', CACHE).type(asset.type);
      res.sendFile(asset.file, (error) => {
        if (error) next(error);
      });
    });
  }
  return router;
}
