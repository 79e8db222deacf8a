// The CSV layout `auth:export --format=csv` writes: no header row, 52 columns and a trailing comma.
// 0 uid, 1 email, 2 email verified, 3 password hash, 4 salt, 5 display name, 6 photo URL,
// 23 created at (ms), 24 last sign-in (ms), 25 phone number, 26 disabled, 27 custom claims (JSON),
// and four columns per provider from the column below: raw id, email, display name, photo URL.
export const CSV_PROVIDER_COLUMNS: ReadonlyArray<[string, number]> = [
  ['google.com', 7],
  ['facebook.com', 11],
  ['twitter.com', 15],
  ['github.com', 19],
  ['apple.com', 28],
  ['microsoft.com', 32],
  ['gc.apple.com', 36],
  ['playgames.google.com', 40],
  ['linkedin.com', 44],
  ['yahoo.com', 48],
];

export const CSV_COLUMN_COUNT = 52;
