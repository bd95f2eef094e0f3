/**
 * The read-only pages beside the API, which need no key: the OpenAPI document
 * and a Swagger UI page for it. The viewer is served from `swagger-ui-dist` in
 * node_modules; the page loads nothing from the internet.
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface Page {
  readonly contentType: string;
  readonly body: () => Buffer;
}

/** The document's path, and the viewer's. Relative links keep both working under a path prefix. */
export const OPENAPI_DOCUMENT_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

const HTML = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>White-label user management API</title>
    <link rel="stylesheet" href="docs/swagger-ui.css">
    <link rel="icon" type="image/png" href="docs/favicon-32x32.png">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="docs/swagger-ui-bundle.js"></script>
    <script src="docs/init.js"></script>
  </body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io.
const INIT = `window.ui = SwaggerUIBundle({
  url: 'openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  docExpansion: 'list',
  displayOperationId: true,
});
`;

/**
 * The pages by path; `document` serialises the OpenAPI document (its server is relative, so one
 * document serves every host). Viewer files are read and the document built on first use, then kept.
 */
export function docsPages(document: () => string): ReadonlyMap<string, Page> {
  const viewer = (file: string, contentType: string): Page => {
    let cached: Buffer | undefined;
    return { contentType, body: () => (cached ??= readFileSync(join(swaggerUiDir(), file))) };
  };
  const text = (body: string, contentType: string): Page => {
    const buffer = Buffer.from(body);
    return { contentType, body: () => buffer };
  };
  let built: Buffer | undefined;
  const openApi: Page = { contentType: 'application/json', body: () => (built ??= Buffer.from(document())) };
  return new Map([
    [OPENAPI_DOCUMENT_PATH, openApi],
    [DOCS_PATH, text(HTML, 'text/html; charset=utf-8')],
    [`${DOCS_PATH}/init.js`, text(INIT, 'text/javascript; charset=utf-8')],
    [`${DOCS_PATH}/swagger-ui.css`, viewer('swagger-ui.css', 'text/css; charset=utf-8')],
    [`${DOCS_PATH}/swagger-ui-bundle.js`, viewer('swagger-ui-bundle.js', 'text/javascript; charset=utf-8')],
    [`${DOCS_PATH}/favicon-32x32.png`, viewer('favicon-32x32.png', 'image/png')],
  ]);
}

/**
 * Only the page's own files and the document; inline styles and data: images are
 * Swagger UI's own. connect-src stays open for "Try it out" against another base_url.
 */
export const DOCS_CONTENT_SECURITY_POLICY =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self' http: https:; frame-ancestors 'none'";

const swaggerUiDir = () => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
