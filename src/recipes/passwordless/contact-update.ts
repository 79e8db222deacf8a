import type pg from 'pg';
import { coreError } from '../../errors.js';
import { withTransaction } from '../../db/transaction.js';
import { checkContact, legacyEmailKey, legacyPhoneNumberKey, requireContact, type ContactKind } from '../../normalise/contact.js';
import { assertMaxLength } from '../../normalise/length-limits.js';
import { deleteDevicesByContacts, findContactOwners, findUserByIdForUpdate, lockContacts, type Contact } from './repository.js';
import { updateLoginMethodContacts } from '../../users/login-method-repository.js';
import { emailHeldByAnotherPrimaryUser, phoneNumberHeldByAnotherPrimaryUser, type ContactUpdate, type UpdateUserResult } from './types.js';
import { uniqueViolationOf } from '../../db/pg-errors.js';
import { findContactsHeldElsewhere } from '../../account-linking/repository.js';

// Thrown inside the transaction so it rolls back, and answered outside it.
class ContactTaken extends Error {
  constructor(readonly result: UpdateUserResult) {
    super(result.status);
  }
}

// A login method of a primary user cannot take a value another primary user holds; like the reference (12.1.1), it
// is answered the same way when another login method of the recipe holds the value (AL-10.3).
function taken(kind: ContactKind, inPrimaryUser: boolean): UpdateUserResult {
  if (kind === 'email') {
    return inPrimaryUser
      ? { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR', reason: emailHeldByAnotherPrimaryUser }
      : { status: 'EMAIL_ALREADY_EXISTS_ERROR' };
  }
  return inPrimaryUser
    ? { status: 'PHONE_NUMBER_CHANGE_NOT_ALLOWED_ERROR', reason: phoneNumberHeldByAnotherPrimaryUser }
    : { status: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR' };
}

// A value stored by an earlier version that the rules now refuse may be sent again unchanged (scripts resend both
// contacts): it is kept as it is rather than refused.
function nextValue(kind: ContactKind, current: string | null, given: string | null | undefined): string | null {
  if (given === undefined) return current;
  if (given === null) return null;
  const legacyKey = kind === 'email' ? legacyEmailKey(given) : legacyPhoneNumberKey(given);
  if (current !== null && legacyKey === current && !checkContact(kind, given).ok) return current;
  return requireContact(kind, given);
}

/** PUT /recipe/user with rid passwordless (contract §5.8, AL-10.3). */
export async function updateContacts(pool: pg.Pool, update: ContactUpdate): Promise<UpdateUserResult> {
  try {
    return await withTransaction(pool, (tx) => applyUpdate(tx, update));
  } catch (error) {
    if (error instanceof ContactTaken) return error.result;
    throw error;
  }
}

async function applyUpdate(tx: pg.PoolClient, update: ContactUpdate): Promise<UpdateUserResult> {
  const user = await findUserByIdForUpdate(tx, update.id);
  if (!user || user.recipe_id !== 'passwordless') return { status: 'UNKNOWN_USER_ID_ERROR' };
  const email = nextValue('email', user.email, update.email);
  const phoneNumber = nextValue('phoneNumber', user.phone_number, update.phoneNumber);
  assertMaxLength('email', email);
  assertMaxLength('phoneNumber', phoneNumber);
  if (email === null && phoneNumber === null) throw coreError('CLEAR_BOTH_CONTACTS');

  const emailChanges = email !== user.email;
  const phoneChanges = phoneNumber !== user.phone_number;
  if (!emailChanges && !phoneChanges) return { status: 'OK' };

  // Old and new values both lose their pending codes: the old one no longer signs this user in, the new one
  // now does, so a code sent for it before the change must not create another user.
  const touched: Contact[] = [];
  if (emailChanges) touched.push(...contacts('email', user.email, email));
  if (phoneChanges) touched.push(...contacts('phoneNumber', user.phone_number, phoneNumber));
  await lockContacts(tx, user.tenant_ids, touched);

  // The email is reported first when both are taken, so it is checked here rather than left to whichever
  // unique index the UPDATE happens to hit first.
  const newEmail = emailChanges ? email : null;
  const newPhoneNumber = phoneChanges ? phoneNumber : null;
  const owners = await findContactOwners(tx, user.tenant_ids, user.user_id, newEmail, newPhoneNumber);
  const elsewhere = user.in_primary_user
    ? await findContactsHeldElsewhere(tx, user.tenant_ids, user.user_id, newEmail, newPhoneNumber)
    : { email: false, phoneNumber: false };
  if (owners.emailTaken || elsewhere.email) return taken('email', user.in_primary_user);
  if (owners.phoneNumberTaken || elsewhere.phoneNumber) return taken('phoneNumber', user.in_primary_user);
  try {
    await updateLoginMethodContacts(tx, user.user_id, email, phoneNumber);
  } catch (error) {
    // A user created or linked by a flow that does not take the contact lock (bulk import, account linking) slipped
    // in after the checks.
    const index = uniqueViolationOf(error);
    if (index === 'login_method_tenants__email_key') throw new ContactTaken(taken('email', user.in_primary_user));
    if (index === 'login_method_tenants__passwordless_phone_number_key') throw new ContactTaken(taken('phoneNumber', user.in_primary_user));
    if (index === 'primary_account_infos__info_key') throw new ContactTaken(taken(emailChanges ? 'email' : 'phoneNumber', true));
    throw error;
  }
  await deleteDevicesByContacts(tx, user.tenant_ids, touched);
  return { status: 'OK' };
}

function contacts(kind: Contact['kind'], ...values: (string | null)[]): Contact[] {
  return values.filter((value): value is string => value !== null).map((value) => ({ kind, value }));
}
