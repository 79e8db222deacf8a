import crypto from 'node:crypto';
import { sleep } from './ports.js';

// A bounded load as an app's clients make it: each client plays a fixed number of rounds, one request at a time,
// each round a sign-in of a user imported before the load, a password-hash import of a new user, a session create
// and a refresh of the client's own session, each request sent to the next core in turn (as behind a load
// balancer). A 503 with Retry-After is waited out and the same request sent again, to the next core: an import or a
// sign-in again as it was, a refresh with the same refresh token, which the core accepts again within
// refresh_token_rotation_grace_period of its rotation (cdi 5.6) should the 503 have come after the rotation
// committed. Every answer is recorded; every write answered 200 is remembered, to be looked for afterwards.
export type Kind = 'signin' | 'import' | 'session' | 'refresh';

export interface ClientAnswer {
  client: number;
  core: number;
  kind: Kind;
  /** 0 when no HTTP answer came (the core refused the connection or the request timed out). */
  status: number;
  retryAfter: string | null;
  body: string;
  startedAt: number;
  at: number;
}

export interface Chain {
  handle: string;
  /** The newest refresh token answered 200: the one the client holds. */
  token: string;
  refreshes: number;
  /** Why the chain ended, when it did: an answer other than a new token, or no 200 within the grace period. */
  broken?: string;
}

export interface ClientLoadOptions {
  /** The cores' base URLs. */
  cores: string[];
  prefix: string;
  /** A bcrypt hash of `password`, which imports carry. */
  passwordHash: string;
  password: string;
  /** Users imported before the load, signed in during it. */
  signInEmails: string[];
  clients: number;
  rounds: number;
  /** How long a refresh answered 503 is sent again with the same token: within the core's grace period. */
  refreshRetryMs: number;
  /** How long any other request answered 503 is sent again. */
  retryMs: number;
}

const sessionHeaders = { 'content-type': 'application/json', 'cdi-version': '5.6' };

export class ClientLoad {
  readonly answers: ClientAnswer[] = [];
  readonly acknowledged = { imports: [] as string[], sessions: [] as string[], signIns: 0, refreshes: 0 };
  /** Sign-ins answered 200 with anything but OK (a user imported before the load not found or not matching). */
  readonly failedSignIns: string[] = [];
  /** Requests still answered 503 when their retry time ran out. */
  readonly gaveUp: { client: number; kind: Kind }[] = [];
  readonly chains: Chain[] = [];
  roundsDone = 0;
  private readonly turns: number[];

  constructor(private readonly options: ClientLoadOptions) {
    this.turns = Array.from({ length: options.clients }, (_, client) => client);
  }

  /** One session per client, created before the load. */
  async createChains(): Promise<void> {
    for (let client = 0; client < this.options.clients; client++) {
      const created = await this.send(
        client,
        'session',
        '/recipe/session',
        this.sessionBody(`${this.options.prefix}-chain${client}`),
        sessionHeaders,
      );
      if (created.status !== 200) throw new Error(`session create answered ${created.status}: ${created.body}`);
      const body = JSON.parse(created.body) as { session: { handle: string }; refreshToken: { token: string } };
      this.chains.push({ handle: body.session.handle, token: body.refreshToken.token, refreshes: 0 });
    }
  }

  async run(): Promise<void> {
    await Promise.all(this.turns.map((_, client) => this.client(client)));
  }

  /** One refresh of a chain, on the given core, outside the load (the check afterwards). */
  async refreshOn(chain: number, core: number): Promise<ClientAnswer> {
    return this.post(chain, core, 'refresh', '/recipe/session/refresh', this.refreshBody(chain), sessionHeaders);
  }

  private async client(client: number): Promise<void> {
    const { prefix, rounds, signInEmails, password, passwordHash } = this.options;
    for (let round = 0; round < rounds; round++) {
      const steps: (() => Promise<void>)[] = [
        async () => {
          const email = signInEmails[(client * rounds + round) % signInEmails.length];
          const signIn = await this.send(client, 'signin', '/recipe/signin', { email, password });
          if (signIn.status !== 200) return;
          if ((JSON.parse(signIn.body) as { status: string }).status === 'OK') this.acknowledged.signIns++;
          else this.failedSignIns.push(`${email}: ${signIn.body}`);
        },
        async () => {
          const email = `${prefix}-c${client}-r${round}@example.com`;
          const answer = await this.send(client, 'import', '/recipe/user/passwordhash/import', { email, passwordHash });
          if (answer.status === 200 && (JSON.parse(answer.body) as { status: string }).status === 'OK')
            this.acknowledged.imports.push(email);
        },
        async () => {
          const answer = await this.send(
            client,
            'session',
            '/recipe/session',
            this.sessionBody(`${prefix}-c${client}-u${round}`),
            sessionHeaders,
          );
          if (answer.status === 200)
            this.acknowledged.sessions.push((JSON.parse(answer.body) as { session: { handle: string } }).session.handle);
        },
        async () => {
          const chain = this.chains[client];
          if (chain.broken) return;
          const answer = await this.send(client, 'refresh', '/recipe/session/refresh', () => this.refreshBody(client), sessionHeaders);
          const body =
            answer.status === 200 ? (JSON.parse(answer.body) as { status: string; refreshToken?: { token: string } }) : undefined;
          if (body?.status === 'OK' && body.refreshToken) {
            chain.token = body.refreshToken.token;
            chain.refreshes++;
            this.acknowledged.refreshes++;
          } else {
            chain.broken = `round ${round}: ${answer.status} ${answer.body.slice(0, 200)}`;
          }
        },
      ];
      // Each client starts its rounds at a different step, so that the fall meets every kind of request.
      for (let step = 0; step < steps.length; step++) await steps[(client + round + step) % steps.length]();
      this.roundsDone++;
    }
  }

  /** Sends a request, and again to the next core after Retry-After for as long as its retry time allows. */
  private async send(
    client: number,
    kind: Kind,
    path: string,
    body: object | (() => object),
    headers: Record<string, string> = { 'content-type': 'application/json' },
  ): Promise<ClientAnswer> {
    const firstAt = Date.now();
    const retryMs = kind === 'refresh' ? this.options.refreshRetryMs : this.options.retryMs;
    for (;;) {
      const core = this.turns[client]++ % this.options.cores.length;
      const answer = await this.post(client, core, kind, path, typeof body === 'function' ? body() : body, headers);
      if (answer.status !== 503 || answer.retryAfter === null) return answer;
      const wait = Number(answer.retryAfter) * 1000;
      if (Date.now() + wait - firstAt > retryMs) {
        this.gaveUp.push({ client, kind });
        return answer;
      }
      await sleep(wait);
    }
  }

  private async post(
    client: number,
    core: number,
    kind: Kind,
    path: string,
    body: object,
    headers: Record<string, string>,
  ): Promise<ClientAnswer> {
    const startedAt = Date.now();
    let answer: ClientAnswer;
    try {
      const response = await fetch(`${this.options.cores[core]}${path}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      answer = {
        client,
        core,
        kind,
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        body: text,
        startedAt,
        at: Date.now(),
      };
    } catch (error) {
      answer = { client, core, kind, status: 0, retryAfter: null, body: String(error), startedAt, at: Date.now() };
    }
    this.answers.push(answer);
    return answer;
  }

  private sessionBody(userId: string) {
    return { userId, userDataInJWT: {}, userDataInDatabase: {}, useDynamicSigningKey: true, enableAntiCsrf: false };
  }

  private refreshBody(chain: number) {
    return { refreshToken: this.chains[chain].token, enableAntiCsrf: false, useDynamicSigningKey: true };
  }
}

/** The refresh_token_hash_2 the core stores for a refresh token it handed out: SHA-256 of SHA-256 of the token, hex. */
export function storedRefreshHash(token: string): string {
  const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');
  return sha256(sha256(token));
}
