import http from 'node:http';
import https from 'node:https';
import { utf8Text } from './utf8-text.js';

export interface HttpAnswer {
  status: number;
  text: string;
}

// node:http rather than fetch: fetch's client costs the command about a tenth of a second to load, and copies every
// request body once more before sending it. Connections are kept open between requests, as fetch does.
const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

/** One request and its whole answer; a network error (its `code` names it: ECONNREFUSED, ...) or a silence of timeoutMs rejects. */
export function httpRequest(
  url: string,
  options: { method: string; headers: Record<string, string>; body?: string | Buffer; timeoutMs: number },
): Promise<HttpAnswer> {
  const secure = url.startsWith('https:');
  const client = secure ? https : http;
  const agent = secure ? agents.https : agents.http;
  // Sent as bytes: written as a string, the body would be joined to the headers and copied once more.
  const body = typeof options.body === 'string' ? Buffer.from(options.body, 'utf8') : options.body;
  const headers = { ...options.headers, ...(body !== undefined && { 'content-length': String(body.length) }) };
  return new Promise((resolve, reject) => {
    const request = client.request(url, { method: options.method, headers, agent, timeout: options.timeoutMs }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: utf8Text(Buffer.concat(chunks)) }));
    });
    request.on('error', reject);
    request.on('timeout', () => request.destroy(new Error(`no answer within ${options.timeoutMs / 1000} s`)));
    request.end(body);
  });
}
