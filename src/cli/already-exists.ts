/** The coded "already exists" import errors of the bulk-import queue (E003, E005, E006, E007, E031). */
export const ALREADY_EXISTS = /\bE0(03|05|06|07|31)\b/;

/** The coded import errors that mean another user in the core holds a value (those above, and E030: the old id is
 * another user's id), so that the dry run files them as the real run would: failed, not invalid. */
export const HELD_BY_ANOTHER_USER = /\bE0(03|05|06|07|30|31)\b/;
