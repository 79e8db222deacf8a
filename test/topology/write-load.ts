// Writes against several cores over real HTTP, each loop sending its next request as soon as the last one was
// answered: sign-ups, password-hash imports, bulk imports of one user, session creates, and refresh chains that move
// from core to core. Every answer is recorded; every write answered 200 is remembered, to be looked for afterwards.
export interface Answer {
  core: number;
  kind: 'signup' | 'import' | 'bulk-import' | 'session' | 'refresh';
  /** 0 when no HTTP answer came (the core refused the connection or the request timed out). */
  status: number;
  retryAfter: string | null;
  body: string;
  startedAt: number;
  at: number;
}

export interface Acknowledged {
  /** Emails of sign-ups, password-hash imports and bulk imports answered 200. */
  emails: string[];
  /** External user ids of bulk imports answered 200. */
  externalIds: string[];
  /** Handles of sessions created with 200. */
  sessions: string[];
  /** Refresh rotations answered 200. */
  refreshes: number;
}

const sessionHeaders = { 'content-type': 'application/json', 'cdi-version': '5.6' };
const sessionBody = (userId: string) => ({
  userId,
  userDataInJWT: {},
  userDataInDatabase: {},
  useDynamicSigningKey: true,
  enableAntiCsrf: false,
});

export class WriteLoad {
  readonly answers: Answer[] = [];
  readonly acknowledged: Acknowledged = { emails: [], externalIds: [], sessions: [], refreshes: 0 };
  /** The latest refresh token of each chain, the one its client holds. */
  readonly chains: string[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private counter = 0;

  constructor(
    private readonly cores: string[],
    private readonly prefix: string,
    /** A bcrypt hash that imports carry. */
    private readonly passwordHash: string,
  ) {}

  async post(core: number, kind: Answer['kind'], path: string, body: object, headers: Record<string, string> = {}): Promise<Answer> {
    const startedAt = Date.now();
    let answer: Answer;
    try {
      const response = await fetch(`${this.cores[core]}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      answer = {
        core,
        kind,
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        body: text,
        startedAt,
        at: Date.now(),
      };
    } catch (error) {
      answer = { core, kind, status: 0, retryAfter: null, body: String(error), startedAt, at: Date.now() };
    }
    if (this.running) this.answers.push(answer);
    return answer;
  }

  /** One session per chain, created before the load starts. */
  async createChains(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const created = await this.post(
        i % this.cores.length,
        'session',
        '/recipe/session',
        sessionBody(`${this.prefix}-chain${i}`),
        sessionHeaders,
      );
      if (created.status !== 200) throw new Error(`session create answered ${created.status}: ${created.body}`);
      this.chains.push((JSON.parse(created.body) as { refreshToken: { token: string } }).refreshToken.token);
    }
  }

  async refresh(chain: number, core: number): Promise<Answer> {
    const answer = await this.post(
      core,
      'refresh',
      '/recipe/session/refresh',
      { refreshToken: this.chains[chain], enableAntiCsrf: false, useDynamicSigningKey: true },
      sessionHeaders,
    );
    if (answer.status === 200) {
      this.chains[chain] = (JSON.parse(answer.body) as { refreshToken: { token: string } }).refreshToken.token;
      if (this.running) this.acknowledged.refreshes++;
    }
    return answer;
  }

  start(): void {
    this.running = true;
    const loop = (step: () => Promise<unknown>) =>
      (async () => {
        while (this.running) await step();
      })();
    for (const [core] of this.cores.entries()) {
      this.loops.push(
        loop(async () => {
          const email = `${this.prefix}-s${this.counter++}@example.com`;
          const answer = await this.post(core, 'signup', '/recipe/signup', { email, password: 'a-password-1' });
          if (answer.status === 200) this.acknowledged.emails.push(email);
        }),
        loop(async () => {
          const email = `${this.prefix}-i${this.counter++}@example.com`;
          const answer = await this.post(core, 'import', '/recipe/user/passwordhash/import', { email, passwordHash: this.passwordHash });
          if (answer.status === 200) this.acknowledged.emails.push(email);
        }),
        loop(async () => {
          const n = this.counter++;
          const email = `${this.prefix}-b${n}@example.com`;
          const externalUserId = `${this.prefix}-ext${n}`;
          const answer = await this.post(core, 'bulk-import', '/bulk-import/import', {
            externalUserId,
            loginMethods: [{ recipeId: 'emailpassword', email, passwordHash: this.passwordHash, hashingAlgorithm: 'bcrypt' }],
          });
          if (answer.status === 200) {
            this.acknowledged.emails.push(email);
            this.acknowledged.externalIds.push(externalUserId);
          }
        }),
        loop(async () => {
          const answer = await this.post(
            core,
            'session',
            '/recipe/session',
            sessionBody(`${this.prefix}-u${this.counter++}`),
            sessionHeaders,
          );
          if (answer.status === 200)
            this.acknowledged.sessions.push((JSON.parse(answer.body) as { session: { handle: string } }).session.handle);
        }),
      );
    }
    // Each chain's client refreshes on the cores in turn, as behind a load balancer.
    for (const chain of this.chains.keys()) {
      let turn = chain;
      this.loops.push(
        loop(async () => {
          await this.refresh(chain, turn++ % this.cores.length);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }),
      );
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    this.loops = [];
  }
}
