// The documentation page: Swagger UI (the swagger-ui-dist package, served from this process, no
// CDN) rendering /api/v1/openapi.json. Everything is a file of our own origin, so helmet's CSP
// (script-src 'self') holds; Swagger UI's inline styles are allowed by its style-src.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/** Where swagger-ui-dist is installed; it is a runtime dependency. */
export const SWAGGER_UI_DIR = dirname(
  createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'),
);

/** The only files of the package the page needs, under /api/v1/docs/assets/. */
export const SWAGGER_UI_FILES = [
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'favicon-32x32.png',
] as const;

export const DOCS_PAGE = `<!doctype html>
<html lang="tr">
<head>
<meta charset="utf-8">
<title>Dashboard External API</title>
<link rel="stylesheet" href="/api/v1/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/api/v1/docs/assets/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/api/v1/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/v1/docs/docs.js"></script>
</body>
</html>
`;

// validatorUrl: null keeps Swagger UI from calling its online validator; every operation is
// listed open so a reader (and the browser test) sees each path without clicking.
export const DOCS_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/api/v1/openapi.json',
    dom_id: '#swagger-ui',
    validatorUrl: null,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    displayOperationId: true,
    showExtensions: true,
    tryItOutEnabled: false,
  });
});
`;
