import { join } from 'node:path';
import { Router } from 'express';
import type { Endpoint } from '../../http/endpoint.js';
import { openApiDocument } from './openapi.js';
import { DOCS_PAGE, DOCS_SCRIPT, SWAGGER_UI_DIR, SWAGGER_UI_FILES } from './docs-page.js';

const ONE_DAY_MS = 24 * 60 * 60 * 1000;

/**
 * GET /api/v1/openapi.json and GET /api/v1/docs (Swagger UI rendering it), under `prefix`. No
 * token needed, and no CDN: the renderer's files are served from the installed package.
 */
export function docsRoutes(endpoints: readonly Endpoint[], prefix: string): Router {
  const router = Router();
  const document = openApiDocument(endpoints);
  router.get(`${prefix}/openapi.json`, (_req, res) => {
    res.json(document);
  });
  router.get(`${prefix}/docs`, (_req, res) => {
    res.type('html').send(DOCS_PAGE);
  });
  router.get(`${prefix}/docs/docs.js`, (_req, res) => {
    res.type('application/javascript').send(DOCS_SCRIPT);
  });
  for (const file of SWAGGER_UI_FILES) {
    router.get(`${prefix}/docs/assets/${file}`, (_req, res, next) => {
      res.sendFile(join(SWAGGER_UI_DIR, file), { maxAge: ONE_DAY_MS }, (error) => {
        if (error) next(error);
      });
    });
  }
  return router;
}
