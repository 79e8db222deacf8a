import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CoreMetrics } from './metrics.js';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

// GET /metrics on a port of its own (metrics_port), for a scraper on a network that must not reach the API.
// It answers nothing else and takes no API key: the port is the protection.
export async function startMetricsServer(metrics: CoreMetrics, port: number, host: string): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    metrics.exposition().then(
      (text) => response.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      () => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Internal Error\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/metrics`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
