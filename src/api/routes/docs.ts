// GET /openapi.json and GET /docs (CONTRACT 11): the OpenAPI document and its rendered reference
// page, both built once at startup. Public: no authentication.
import { renderDocsPage } from '../docs-page/render';
import { docsSecurityHeaders } from '../docs-page/style';
import { openApiDocument } from '../openapi/document';
import type { AppRouter } from '../context';

export function registerDocsRoutes(router: AppRouter): void {
  const document = openApiDocument();
  const documentJson = JSON.stringify(document);
  const page = renderDocsPage(document);

  router.get('openapiDocument', '/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = documentJson;
  });

  router.get('docsPage', '/docs', (ctx) => {
    ctx.set(docsSecurityHeaders());
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  });
}
