import { Router } from 'express';
import type { Endpoint } from '../../http/endpoint.js';
import { openApiDocument } from './openapi.js';
import { DOCS_PAGE, DOCS_SCRIPT } from './docs-page.js';

/**
 * GET /api/v1/openapi.json and GET /api/v1/docs (a page rendering it). No token needed, and no
 * CDN: the page's script is served from here, which the helmet CSP (script-src 'self') allows.
 */
export function docsRoutes(endpoints: readonly Endpoint[]): Router {
  const router = Router();
  const document = openApiDocument(endpoints);
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.get('/docs', (_req, res) => {
    res.type('html').send(DOCS_PAGE);
  });
  router.get('/docs/docs.js', (_req, res) => {
    res.type('application/javascript').send(DOCS_SCRIPT);
  });
  return router;
}
