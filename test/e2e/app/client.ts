/**
 * A small HTTP client that treats the app's answers as the official frontend SDK (supertokens-website, under
 * supertokens-web-js) does: it sends `rid` (the recipe id on recipe calls, `anti-csrf` on the app's own routes,
 * `session` on refresh), `fdi-version` and `st-auth-mode`; in header mode it keeps `st-access-token` /
 * `st-refresh-token` from the answers and sends them as `Authorization: Bearer`; in cookie mode it keeps the
 * cookies the app sets (name, path, expiry) and sends those whose path matches; it keeps `front-token` (dropped on
 * `remove`) and `anti-csrf` and sends the latter back. `fetch` refreshes once on a 401 and retries, like the SDK.
 */
export type TransferMode = 'header' | 'cookie';

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

interface Cookie {
  value: string;
  path: string;
}

export interface FrontToken {
  uid: string;
  ate: number;
  up: Record<string, unknown>;
}

const fdiVersion = '3.1,4.0,4.1,4.2';

export class FrontendClient {
  private readonly cookies = new Map<string, Cookie>();
  accessToken?: string;
  refreshToken?: string;
  frontTokenText?: string;
  antiCsrf?: string;
  /** Every request sent, as `METHOD /path`. */
  readonly sent: string[] = [];
  /** Every token the app ever handed this client (access, refresh, anti-csrf), to look for in logs. */
  readonly received = new Set<string>();

  constructor(
    readonly baseUrl: string,
    readonly mode: TransferMode,
  ) {}

  /** The decoded front token (user id, access-token expiry and payload), as the frontend reads it. */
  get frontToken(): FrontToken | undefined {
    return this.frontTokenText === undefined
      ? undefined
      : (JSON.parse(Buffer.from(this.frontTokenText, 'base64').toString('utf8')) as FrontToken);
  }

  /** The session tokens this client holds for the current transfer mode. */
  tokens(): { access?: string; refresh?: string } {
    if (this.mode === 'header') return { access: this.accessToken, refresh: this.refreshToken };
    const read = (name: string) => {
      const cookie = this.cookies.get(name);
      return cookie === undefined ? undefined : decodeURIComponent(cookie.value);
    };
    return { access: read('sAccessToken'), refresh: read('sRefreshToken') };
  }

  /** Puts back tokens saved earlier (a stolen or replayed refresh token, a copied access token). */
  setTokens(tokens: { access?: string; refresh?: string }): void {
    if (this.mode === 'header') {
      if (tokens.access !== undefined) this.accessToken = tokens.access;
      if (tokens.refresh !== undefined) this.refreshToken = tokens.refresh;
      return;
    }
    if (tokens.access !== undefined) this.cookies.set('sAccessToken', { value: encodeURIComponent(tokens.access), path: '/' });
    if (tokens.refresh !== undefined) {
      this.cookies.set('sRefreshToken', { value: encodeURIComponent(tokens.refresh), path: '/auth/session/refresh' });
    }
  }

  /** One request, no retry. `rid` defaults to `anti-csrf`, what the SDK adds to the app's own requests. */
  async request(
    method: string,
    path: string,
    options: { body?: unknown; rid?: string; refresh?: boolean; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const url = new URL(path, this.baseUrl);
    const headers: Record<string, string> = {
      rid: options.rid ?? 'anti-csrf',
      'fdi-version': fdiVersion,
      'st-auth-mode': this.mode,
      ...(options.body !== undefined && { 'content-type': 'application/json' }),
    };
    if (this.antiCsrf !== undefined) headers['anti-csrf'] = this.antiCsrf;
    if (this.mode === 'header') {
      const token = options.refresh ? this.refreshToken : this.accessToken;
      // The SDK adds the access token only while it holds both tokens.
      if (token !== undefined && this.accessToken !== undefined && this.refreshToken !== undefined) {
        headers.authorization = `Bearer ${token}`;
      }
    } else {
      const cookie = [...this.cookies.entries()]
        .filter(
          ([, { path: cookiePath }]) =>
            url.pathname === cookiePath || url.pathname.startsWith(cookiePath.endsWith('/') ? cookiePath : `${cookiePath}/`),
        )
        .map(([name, { value }]) => `${name}=${value}`)
        .join('; ');
      if (cookie !== '') headers.cookie = cookie;
    }
    Object.assign(headers, options.headers);
    this.sent.push(`${method} ${url.pathname}`);
    const response = await fetch(url, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      redirect: 'manual',
    });
    this.keep(response.headers);
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    return { status: response.status, body, headers: response.headers };
  }

  /** The SDK's refresh call: `POST /auth/session/refresh` with the refresh token and `rid: session`. */
  refresh(): Promise<Answer> {
    return this.request('POST', '/auth/session/refresh', { rid: 'session', refresh: true });
  }

  /** A request as the SDK's fetch wrapper makes it: on 401 it refreshes once and, if that worked, retries. */
  async fetch(method: string, path: string, options: { body?: unknown; rid?: string } = {}): Promise<Answer> {
    const first = await this.request(method, path, options);
    if (first.status !== 401 || this.tokens().refresh === undefined) return first;
    const refreshed = await this.refresh();
    if (refreshed.status !== 200) return first;
    return this.request(method, path, options);
  }

  private keep(headers: Headers): void {
    for (const name of ['st-access-token', 'st-refresh-token', 'anti-csrf']) {
      const value = headers.get(name);
      if (value) this.received.add(value);
    }
    const access = headers.get('st-access-token');
    if (access !== null) this.accessToken = access === '' ? undefined : access;
    const refresh = headers.get('st-refresh-token');
    if (refresh !== null) this.refreshToken = refresh === '' ? undefined : refresh;
    const front = headers.get('front-token');
    if (front !== null) this.frontTokenText = front === 'remove' ? undefined : front;
    const antiCsrf = headers.get('anti-csrf');
    if (antiCsrf !== null) this.antiCsrf = antiCsrf;
    if (front === 'remove') this.antiCsrf = undefined;
    for (const line of headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      // Kept as sent (percent-encoded), sent back the same way.
      const value = pair.slice(eq + 1);
      let path = '/';
      let expired = value === '';
      for (const attribute of attributes) {
        const [key, attributeValue = ''] = attribute.split('=');
        if (key.toLowerCase() === 'path') path = attributeValue;
        if (key.toLowerCase() === 'expires' && Date.parse(attributeValue) <= Date.now()) expired = true;
        if (key.toLowerCase() === 'max-age' && Number(attributeValue) <= 0) expired = true;
      }
      if (value !== '') this.received.add(decodeURIComponent(value));
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, { value, path });
    }
  }
}
