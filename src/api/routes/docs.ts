// GET /openapi.json and GET /docs: the OpenAPI document of one version (the current one, or the one
// `?version=` names) and its rendered reference page. Public: no authentication. Both name the
// configured public base URL, read at the first request (a test server on port 0 learns its URL
// only once it listens), and are then kept for as long as it stays.
import type { Config } from '../../config';
import { renderDocsPage } from '../docs-page/render';
import { docsSecurityHeaders } from '../docs-page/style';
import { openApiDocument } from '../openapi/document';
import type { AppRouter } from '../context';
import { route } from '../operations/operation';
import { getDocsPage, getOpenApiDocument } from '../operations/service';
import type { ApiVersion } from '../../representations/versions';
import { validateQuery } from '../validation';

interface Rendered {
  json: string;
  page: string;
}

export function registerDocsRoutes(router: AppRouter, config: Pick<Config, 'publicBaseUrl'>): void {
  let renderedFor = '';
  const rendered = new Map<ApiVersion, Rendered>();
  const current = (version: ApiVersion): Rendered => {
    if (renderedFor !== config.publicBaseUrl) {
      rendered.clear();
      renderedFor = config.publicBaseUrl;
    }
    let found = rendered.get(version);
    if (!found) {
      const document = openApiDocument(config.publicBaseUrl, version);
      found = { json: JSON.stringify(document), page: renderDocsPage(document) };
      rendered.set(version, found);
    }
    return found;
  };

  route(router, getOpenApiDocument, (ctx) => {
    const { version } = validateQuery(getOpenApiDocument.query.A, ctx.query, 'invalid_request');
    ctx.type = 'application/json';
    ctx.body = current(version).json;
  });

  route(router, getDocsPage, (ctx) => {
    const { version } = validateQuery(getDocsPage.query.A, ctx.query, 'invalid_request');
    ctx.set(docsSecurityHeaders());
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = current(version).page;
  });
}
