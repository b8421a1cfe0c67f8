// GET /openapi.json and GET /docs: the OpenAPI document and its rendered reference page. Public: no
// authentication. Both name the configured public base URL, read at the first request (a test
// server on port 0 learns its URL only once it listens), and are then kept for as long as it stays.
import type { Config } from '../../config';
import { renderDocsPage } from '../docs-page/render';
import { docsSecurityHeaders } from '../docs-page/style';
import { openApiDocument } from '../openapi/document';
import type { AppRouter } from '../context';

interface Rendered {
  publicBaseUrl: string;
  json: string;
  page: string;
}

export function registerDocsRoutes(router: AppRouter, config: Pick<Config, 'publicBaseUrl'>): void {
  let rendered: Rendered | undefined;
  const current = (): Rendered => {
    if (rendered?.publicBaseUrl !== config.publicBaseUrl) {
      const document = openApiDocument(config.publicBaseUrl);
      rendered = { publicBaseUrl: config.publicBaseUrl, json: JSON.stringify(document), page: renderDocsPage(document) };
    }
    return rendered;
  };

  router.get('openapiDocument', '/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = current().json;
  });

  router.get('docsPage', '/docs', (ctx) => {
    ctx.set(docsSecurityHeaders());
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = current().page;
  });
}
