import { join } from 'node:path';
import { Router, type Response } from 'express';
import type { Endpoint } from '../../http/endpoint.js';
import { openApiDocument } from './openapi.js';
import { DOCS_PAGE, DOCS_SCRIPT, SWAGGER_UI_DIR, SWAGGER_UI_FILES } from './docs-page.js';

const ONE_DAY_S = 24 * 60 * 60;
/** The document and its page change only with a deploy; a browser rereads them after this. */
const DOCUMENT_S = 5 * 60;

/**
 * The documentation holds no partner data, so unlike every other answer (no-store, see
 * http/security-headers.ts) it may be cached.
 */
const cacheable = (res: Response, seconds: number) =>
  res.set('Cache-Control', `public, max-age=${seconds}`);

/**
 * GET /api/v1/openapi.json and GET /api/v1/docs (Swagger UI rendering it), under `prefix`. No
 * token needed, and no CDN: the renderer's files are served from the installed package.
 */
export function docsRoutes(endpoints: readonly Endpoint[], prefix: string): Router {
  const router = Router();
  const document = openApiDocument(endpoints);
  router.get(`${prefix}/openapi.json`, (_req, res) => {
    cacheable(res, DOCUMENT_S).json(document);
  });
  router.get(`${prefix}/docs`, (_req, res) => {
    cacheable(res, DOCUMENT_S).type('html').send(DOCS_PAGE);
  });
  router.get(`${prefix}/docs/docs.js`, (_req, res) => {
    cacheable(res, DOCUMENT_S).type('application/javascript').send(DOCS_SCRIPT);
  });
  for (const file of SWAGGER_UI_FILES) {
    router.get(`${prefix}/docs/assets/${file}`, (_req, res, next) => {
      // The renderer's files change only with the installed package.
      cacheable(res, ONE_DAY_S).sendFile(join(SWAGGER_UI_DIR, file), (error) => {
        if (error) next(error);
      });
    });
  }
  return router;
}
