// The operators' listener of a process: `GET /metrics` (one Prometheus registry) and, for a worker,
// `GET /health`; nothing else. The worker's metrics port, and the API's (API_METRICS_PORT, which in
// production is the only place its metrics are served). It binds the configured address
// (API_METRICS_HOST, WORKER_METRICS_HOST; loopback by default) and has the transport bounds of
// every server of the project (src/web/transport.ts).
import type { Registry } from 'prom-client';
import type { HttpLimits } from '../config';
import { createHttpServer, listen, type TransportLogger } from '../web/transport';

/** A health answer: 200 when `ok`, else 503; the body lists each check. */
export interface HealthReport {
  ok: boolean;
  body: Record<string, unknown>;
}

export interface OperationsEndpoints {
  registry: Registry;
  health?: () => Promise<HealthReport>;
}

export interface OperationsAddress {
  host: string;
  /** 0 picks a free port. */
  port: number;
  limits: HttpLimits;
  logger: TransportLogger;
}

export interface OperationsServer {
  port: number;
  close(): Promise<void>;
}

export async function serveOperations(endpoints: OperationsEndpoints, address: OperationsAddress): Promise<OperationsServer> {
  const server = createHttpServer((req, res) => {
    const path = req.url?.split('?')[0];
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...(status === 503 ? { 'Retry-After': '1' } : {}) }).end(JSON.stringify(body));
    };
    if (req.method === 'GET' && path === '/metrics') {
      endpoints.registry.metrics().then((text) => { res.writeHead(200, { 'Content-Type': endpoints.registry.contentType }).end(text); }, () => res.writeHead(500).end());
      return;
    }
    if (req.method === 'GET' && path === '/health' && endpoints.health) {
      endpoints.health().then((report) => json(report.ok ? 200 : 503, report.body), () => json(503, { status: 'unavailable' }));
      return;
    }
    json(404, { error: { code: 'resource_not_found', message: 'This listener serves GET /metrics' + (endpoints.health ? ' and GET /health.' : '.') } });
  }, { limits: address.limits, logger: address.logger });
  const port = await listen(server, address.port, address.host);
  return {
    port,
    close: () => new Promise<void>((done) => { server.close(() => done()); server.closeAllConnections(); }),
  };
}
