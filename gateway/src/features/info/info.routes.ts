import { Router } from 'express';
import { z } from 'zod';
import { ENDPOINT_GROUPS, type Endpoint } from '../../http/endpoint.js';

export const BRANCH_POLICY =
  'Bir şubeye bağlı istemci yalnızca o şubenin verilerini görür; şube bağlaması boş (null) olan istemci tüm şubeleri görür.';

const operations = z
  .record(z.string(), z.string())
  .meta({ description: 'operationId -> "METHOD /api/v1/path"' });

export const apiInfoResponse = z
  .object({
    success: z.literal(true),
    data: z
      .object({
        name: z.string(),
        version: z.string(),
        documentation: z.string(),
        branch_policy: z.string(),
        endpoints: z.strictObject(
          Object.fromEntries(ENDPOINT_GROUPS.map((group) => [group, operations])),
        ),
      })
      .meta({ id: 'ApiInfo' }),
  })
  .meta({ id: 'ApiInfoResponse' });

/** ApiInfo: every operation in the specification's groups, from the endpoint declarations. */
export function apiInfo(endpoints: readonly Endpoint[]) {
  return {
    name: 'Dashboard External API',
    version: 'v1',
    documentation: '/api/v1/docs',
    branch_policy: BRANCH_POLICY,
    endpoints: Object.fromEntries(
      ENDPOINT_GROUPS.map((group) => [
        group,
        Object.fromEntries(
          endpoints
            .filter((e) => e.group === group)
            .map((e) => [e.operationId, `${e.method} /api/v1${e.path}`]),
        ),
      ]),
    ),
  };
}

/** GET /api/v1 (`prefix`): what the API offers and the branch rule; no token needed. */
export function infoRoutes(endpoints: readonly Endpoint[], prefix: string): Router {
  const router = Router();
  const info = { success: true, data: apiInfo(endpoints) };
  router.get(prefix, (_req, res) => {
    res.json(info);
  });
  return router;
}
