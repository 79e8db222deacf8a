import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { ServiceDependencies } from '../../service-deps.js';
import { withTransaction } from '../../db/transaction.js';
import type { Queryable } from '../../db/pool.js';
import { cdiAtLeast, type CdiVersion } from '../../http/cdi-version.js';
import { checkEmail, requireEmail } from '../../normalise/contact.js';
import {
  findLoginMethodById,
  findLoginMethodByInternalId,
  findUserById,
  findUserOfLoginMethod,
  loginMethodView,
  resolveUserId,
  type LoginMethodRow,
  type StoredUser,
} from '../../users/repository.js';
import {
  consumeRecoverToken,
  deleteCredentialOfUser,
  deleteExpiredOptions,
  deleteOptionsById,
  findCredentialOfUser,
  findLiveRecoverToken,
  findOptionsById,
  findWebauthnUserByEmail,
  insertCredential,
  insertOptions,
  insertRecoverToken,
  insertWebauthnUser,
  listCredentialsOfUser,
  spendOptions,
  updateWebauthnEmail,
  type CredentialRow,
  type OptionsRow,
} from './repository.js';
import { ceremonyProblem, relyingPartiesOf, type RelyingParties } from './relying-parties.js';
import { completeSignIn, lockSignIn } from './sign-in-statements.js';
import { newOptionsRow, parameterProblem, storedOptionsBody, type CeremonyInput, type RegisterInput } from './options.js';
import { assertionShapeProblem, registrationShapeProblem } from './credential-shape.js';
import { counterProblem, userHandleProblem, verifyAssertion, verifyRegistration, type RegisteredCredential } from './ceremony-verify.js';

type Reasoned<S extends string> = { status: S; reason: string };
type Status<S extends string> = { status: S };

export type CeremonyRefusal =
  | Status<'OPTIONS_NOT_FOUND_ERROR'>
  | Reasoned<'INVALID_OPTIONS_ERROR'>
  | Reasoned<'INVALID_CREDENTIALS_ERROR'>
  | Reasoned<'INVALID_AUTHENTICATOR_ERROR'>;

export type SignUpResult =
  | { status: 'OK'; user: StoredUser; loginMethod: LoginMethodRow; credential: CredentialRow; options: OptionsRow }
  | Status<'EMAIL_ALREADY_EXISTS_ERROR'>
  | CeremonyRefusal;

export type SignInResult =
  { status: 'OK'; user: StoredUser; loginMethod: LoginMethodRow } | Status<'CREDENTIAL_NOT_FOUND_ERROR'> | CeremonyRefusal;

export type RegisterCredentialResult =
  | { status: 'OK'; credential: CredentialRow; options: OptionsRow; email: string }
  | Status<'CREDENTIAL_ALREADY_EXISTS_ERROR'>
  | Status<'UNKNOWN_USER_ID_ERROR'>
  | CeremonyRefusal;

// Below cdi 5.5 the SDK verifies one sign-in assertion twice; from 5.5 options are spent by the first success.
const usesBelowCdi55 = 2;

function digestOf(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

// Placeholder addresses some SDKs create for users without a real email are verified from the start (§6.3).
function isFakeEmail(email: string): boolean {
  return email.endsWith('@stfakeemail.supertokens.com') || email.endsWith('.fakeemail.com');
}

class Rollback extends Error {
  constructor(readonly result: SignUpResult | RegisterCredentialResult) {
    super('rolled back');
  }
}

export class WebauthnService {
  private readonly parties: RelyingParties;

  constructor(private readonly deps: ServiceDependencies) {
    this.parties = relyingPartiesOf(deps.config);
  }

  private optionsProblem(input: RegisterInput): string | undefined {
    return parameterProblem(input) ?? ceremonyProblem(this.parties, input.relyingPartyId, input.origin);
  }

  async registerOptions(tenantId: string, input: RegisterInput & { email?: string; recoverAccountToken?: string }) {
    let email: string;
    if (input.email !== undefined) {
      const check = checkEmail(input.email);
      if (!check.ok) return { status: 'INVALID_EMAIL_ERROR' as const, err: check.reason };
      email = check.value;
    } else {
      const token = await findLiveRecoverToken(this.deps.pool, digestOf(input.recoverAccountToken ?? ''), tenantId, this.deps.clock());
      if (!token) return { status: 'RECOVER_ACCOUNT_TOKEN_INVALID_ERROR' as const };
      email = token.email;
    }
    const problem = this.optionsProblem(input);
    if (problem) return { status: 'INVALID_OPTIONS_ERROR' as const, reason: problem };
    const row = newOptionsRow(input, { tenantId, email, now: this.deps.clock(), usesLeft: usesBelowCdi55 });
    await insertOptions(this.deps.pool, row);
    const userId = (await findWebauthnUserByEmail(this.deps.pool, tenantId, email))?.user_id ?? row.id;
    const residentKey = input.residentKey || 'required';
    return {
      status: 'OK' as const,
      webauthnGeneratedOptionsId: row.id,
      rp: { id: row.rp_id, name: row.rp_name },
      user: { id: Buffer.from(userId, 'utf8').toString('base64url'), name: email, displayName: input.displayName || email },
      email,
      timeout: row.timeout,
      challenge: row.challenge,
      attestation: input.attestation || 'none',
      pubKeyCredParams: row.supported_algorithm_ids.map((alg) => ({ alg, type: 'public-key' as const })),
      excludeCredentials: [] as { id: string; type: 'public-key'; transports: string[] }[],
      authenticatorSelection: {
        requireResidentKey: residentKey === 'required',
        residentKey,
        userVerification: row.user_verification,
      },
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    };
  }

  async signInOptions(tenantId: string, input: CeremonyInput) {
    const problem = this.optionsProblem(input);
    if (problem) return { status: 'INVALID_OPTIONS_ERROR' as const, reason: problem };
    const row = newOptionsRow(input, { tenantId, email: null, now: this.deps.clock(), usesLeft: usesBelowCdi55 });
    await insertOptions(this.deps.pool, row);
    return {
      status: 'OK' as const,
      webauthnGeneratedOptionsId: row.id,
      relyingPartyId: row.rp_id,
      challenge: row.challenge,
      timeout: row.timeout,
      userVerification: row.user_verification,
      userPresence: row.user_presence,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    };
  }

  async getOptions(tenantId: string, id: string) {
    const row = await findOptionsById(this.deps.pool, tenantId, id);
    return row ? storedOptionsBody(row) : { status: 'OPTIONS_NOT_FOUND_ERROR' as const };
  }

  async removeOptions(tenantId: string, id: string) {
    return { status: (await deleteOptionsById(this.deps.pool, tenantId, id)) ? ('OK' as const) : ('OPTIONS_NOT_FOUND_ERROR' as const) };
  }

  deleteExpiredOptions(): Promise<number> {
    return deleteExpiredOptions(this.deps.pool, this.deps.clock());
  }

  // Options that exist, are not spent and not expired; a registration's also carry an email.
  private async usableOptions(
    db: Queryable,
    tenantId: string,
    id: string,
    forRegistration: boolean,
  ): Promise<OptionsRow | CeremonyRefusal> {
    const options = await findOptionsById(db, tenantId, id, true);
    return this.optionsRefusal(options, forRegistration) ?? options!;
  }

  private optionsRefusal(options: OptionsRow | undefined, forRegistration: boolean): CeremonyRefusal | undefined {
    if (!options || options.uses_left === 0) return { status: 'OPTIONS_NOT_FOUND_ERROR' };
    if (forRegistration && options.email === null)
      return { status: 'INVALID_OPTIONS_ERROR', reason: 'the options were made for a sign-in, not a registration' };
    if (options.expires_at < this.deps.clock()) return { status: 'INVALID_OPTIONS_ERROR', reason: 'Options expired' };
    return undefined;
  }

  private async registered(
    db: Queryable,
    tenantId: string,
    optionsId: string,
    credential: unknown,
  ): Promise<{ options: OptionsRow; verified: RegisteredCredential } | CeremonyRefusal> {
    const options = await this.usableOptions(db, tenantId, optionsId, true);
    if ('status' in options) return options;
    const shape = registrationShapeProblem(credential);
    if (shape) return { status: 'INVALID_CREDENTIALS_ERROR', reason: shape };
    const verified = await verifyRegistration(options, credential);
    if (!verified.ok) return { status: 'INVALID_AUTHENTICATOR_ERROR', reason: verified.reason };
    // The library reads the id from the signed authenticator data; the JSON's id must name the same credential.
    if (verified.value.id !== (credential as { id: string }).id.replace(/=+$/, '')) {
      return { status: 'INVALID_AUTHENTICATOR_ERROR', reason: 'credential.id is not the id of the attested credential' };
    }
    return { options, verified: verified.value };
  }

  private credentialRow(options: OptionsRow, userId: string, verified: RegisteredCredential): Omit<CredentialRow, 'last_used_at'> {
    return {
      rp_id: options.rp_id,
      credential_id: verified.id,
      user_id: userId,
      public_key: verified.publicKey,
      counter: verified.counter,
      transports: verified.transports,
      aaguid: verified.aaguid,
      user_handle: null,
      backup_eligible: verified.backupEligible,
      backed_up: verified.backedUp,
      created_at: this.deps.clock(),
    };
  }

  async signUp(tenantId: string, cdiVersion: CdiVersion, optionsId: string, credential: unknown): Promise<SignUpResult> {
    try {
      return await withTransaction(this.deps.pool, async (db) => {
        const registration = await this.registered(db, tenantId, optionsId, credential);
        if ('status' in registration) return registration;
        const { options, verified } = registration;
        const email = options.email!;
        const userId = randomUUID();
        const created = await insertWebauthnUser(db, {
          userId,
          tenantId,
          email,
          timeJoined: this.deps.clock(),
          verified: isFakeEmail(email),
        });
        if (!created) throw new Rollback({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
        const row = this.credentialRow(options, userId, verified);
        if (!(await insertCredential(db, row))) {
          throw new Rollback({ status: 'INVALID_CREDENTIALS_ERROR', reason: 'the credential is already registered' });
        }
        await spendOptions(db, options.id, verified.counter, cdiAtLeast(cdiVersion, '5.5'));
        const loginMethod = (await findLoginMethodByInternalId(db, userId))!;
        return {
          status: 'OK' as const,
          user: loginMethodView(loginMethod),
          loginMethod,
          credential: { ...row, last_used_at: null },
          options,
        };
      });
    } catch (error) {
      if (error instanceof Rollback) return error.result as SignUpResult;
      throw error;
    }
  }

  async signIn(tenantId: string, cdiVersion: CdiVersion, optionsId: string, credential: unknown): Promise<SignInResult> {
    // The shape is checked before the database is read, but refused only after the options are found usable, in the
    // reference's order of answers.
    const shape = assertionShapeProblem(credential);
    return withTransaction(this.deps.pool, async (db) => {
      const locked = await lockSignIn(db, tenantId, optionsId, shape ? null : (credential as { id: string }).id);
      const refusal = this.optionsRefusal(locked.options, false);
      if (refusal) return refusal;
      const options = locked.options!;
      if (shape) return { status: 'INVALID_CREDENTIALS_ERROR' as const, reason: shape };
      const stored = locked.credential;
      if (!stored) return { status: 'CREDENTIAL_NOT_FOUND_ERROR' as const };
      const handle = userHandleProblem(stored, credential);
      if (handle) return { status: 'INVALID_CREDENTIALS_ERROR' as const, reason: handle };
      const verified = await verifyAssertion(options, stored, credential);
      if (!verified.ok) return { status: 'INVALID_CREDENTIALS_ERROR' as const, reason: verified.reason };
      const clone = counterProblem(options, stored, verified.value.counter);
      if (clone) return { status: 'INVALID_CREDENTIALS_ERROR' as const, reason: clone };
      const loginMethod = (await completeSignIn(db, {
        credential: stored,
        ...verified.value,
        at: this.deps.clock(),
        optionsId: options.id,
        verifiedCounter: Math.max(stored.counter, verified.value.counter),
        consume: cdiAtLeast(cdiVersion, '5.5'),
      }))!;
      return { status: 'OK' as const, user: await findUserOfLoginMethod(db, loginMethod), loginMethod };
    });
  }

  private async webauthnLoginMethod(db: Queryable, recipeUserId: string): Promise<LoginMethodRow | undefined> {
    const row = await findLoginMethodById(db, recipeUserId);
    return row?.recipe_id === 'webauthn' ? row : undefined;
  }

  async registerCredential(
    cdiVersion: CdiVersion,
    recipeUserId: string,
    optionsId: string,
    credential: unknown,
  ): Promise<RegisterCredentialResult> {
    try {
      return await withTransaction(this.deps.pool, async (db) => {
        const registration = await this.registered(db, 'public', optionsId, credential);
        if ('status' in registration) return registration;
        const loginMethod = await this.webauthnLoginMethod(db, recipeUserId);
        if (!loginMethod) return { status: 'UNKNOWN_USER_ID_ERROR' as const };
        const row = this.credentialRow(registration.options, loginMethod.user_id, registration.verified);
        if (!(await insertCredential(db, row))) throw new Rollback({ status: 'CREDENTIAL_ALREADY_EXISTS_ERROR' });
        await spendOptions(db, registration.options.id, registration.verified.counter, cdiAtLeast(cdiVersion, '5.5'));
        return {
          status: 'OK' as const,
          credential: { ...row, last_used_at: null },
          options: registration.options,
          email: loginMethod.email!,
        };
      });
    } catch (error) {
      if (error instanceof Rollback) return error.result as RegisterCredentialResult;
      throw error;
    }
  }

  async getCredential(recipeUserId: string, credentialId: string): Promise<CredentialRow | undefined> {
    const userId = await resolveUserId(this.deps.pool, recipeUserId);
    return userId === undefined ? undefined : findCredentialOfUser(this.deps.pool, userId, credentialId);
  }

  async listCredentials(recipeUserId: string): Promise<CredentialRow[]> {
    const userId = await resolveUserId(this.deps.pool, recipeUserId);
    return userId === undefined ? [] : listCredentialsOfUser(this.deps.pool, userId);
  }

  async removeCredential(recipeUserId: string, credentialId: string): Promise<boolean> {
    const userId = await resolveUserId(this.deps.pool, recipeUserId);
    return userId !== undefined && deleteCredentialOfUser(this.deps.pool, userId, credentialId);
  }

  async generateRecoverToken(tenantId: string, userId: string, givenEmail: string) {
    const email = requireEmail(givenEmail);
    const internalId = await resolveUserId(this.deps.pool, userId);
    if (internalId === undefined) return { status: 'UNKNOWN_USER_ID_ERROR' as const };
    const token = randomBytes(32).toString('base64url');
    const expiresAt = this.deps.clock() + this.deps.config.webauthn_recover_account_token_lifetime;
    await insertRecoverToken(this.deps.pool, { hash: digestOf(token), tenantId, userId: internalId, email, expiresAt });
    return { status: 'OK' as const, token };
  }

  async consumeRecoverToken(tenantId: string, token: string) {
    const row = await consumeRecoverToken(this.deps.pool, digestOf(token), tenantId, this.deps.clock());
    if (!row) return { status: 'RECOVER_ACCOUNT_TOKEN_INVALID_ERROR' as const };
    const { rows } = await this.deps.pool.query<{ external_user_id: string }>(
      'SELECT external_user_id FROM user_id_mappings WHERE user_id = $1',
      [row.user_id],
    );
    return { status: 'OK' as const, userId: rows[0]?.external_user_id ?? row.user_id, email: row.email };
  }

  async userOfRecoverToken(tenantId: string, token: string) {
    const row = await findLiveRecoverToken(this.deps.pool, digestOf(token), tenantId, this.deps.clock());
    const user = row && (await findUserById(this.deps.pool, row.user_id));
    if (!row || !user) return { status: 'RECOVER_ACCOUNT_TOKEN_INVALID_ERROR' as const };
    const webauthn = user.login_methods.find((method) => method.recipe_id === 'webauthn' && method.tenant_ids.includes(tenantId));
    return { status: 'OK' as const, user, email: row.email, recipeUserId: webauthn && (webauthn.external_user_id ?? webauthn.user_id) };
  }

  async updateEmail(recipeUserId: string, givenEmail: string) {
    const email = requireEmail(givenEmail);
    const row = await this.webauthnLoginMethod(this.deps.pool, recipeUserId);
    if (!row) return { status: 'UNKNOWN_USER_ID_ERROR' as const };
    const result = await updateWebauthnEmail(this.deps.pool, row.user_id, email);
    if (result === 'EMAIL_TAKEN') return { status: 'EMAIL_ALREADY_EXISTS_ERROR' as const };
    if (result === 'EMAIL_HELD_BY_ANOTHER_PRIMARY_USER') {
      return { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR' as const, reason: 'New email is associated with another primary user ID' };
    }
    return { status: result === 'OK' ? ('OK' as const) : ('UNKNOWN_USER_ID_ERROR' as const) };
  }
}
