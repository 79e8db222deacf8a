/** The coded "already exists" import errors of the bulk-import queue (E003, E005, E006, E007, E031). */
export const ALREADY_EXISTS = /\bE0(03|05|06|07|31)\b/;

/** Any coded import error (E003 … E034): what the core's import decides, as opposed to its validation. */
export const CODED_IMPORT_ERROR = /^E0\d\d: /;
