import { Router } from 'express';
import { apiInfo } from './api-info.js';

/** GET /api/v1: what the API offers and the branch rule; no token needed. */
export function infoRoutes(): Router {
  const router = Router();
  router.get('/', (_req, res) => {
    res.json({ success: true, data: apiInfo });
  });
  return router;
}
