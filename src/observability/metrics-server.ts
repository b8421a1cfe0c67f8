// A listener that serves one Prometheus registry on GET /metrics and nothing else: the worker's
// metrics port, and the API's when API_METRICS_PORT keeps /metrics off the public port.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** Serves `registry` on every interface (Prometheus scrapes from elsewhere); port 0 picks a free one. */
export function serveMetrics(registry: Registry, port: number): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') { res.writeHead(404).end(); return; }
    registry.metrics().then((text) => { res.writeHead(200, { 'Content-Type': registry.contentType }).end(text); }, () => res.writeHead(500).end());
  });
  return new Promise((resolve, reject) => server.once('error', reject).listen(port, '0.0.0.0', () => {
    resolve({
      port: (server.address() as AddressInfo).port,
      close: () => new Promise<void>((done) => { server.close(() => done()); server.closeAllConnections(); }),
    });
  }));
}
