// `npm run generate:phone-codes`: writes src/normalise/phone-calling-codes.ts from the installed google-libphonenumber.
// The phone rule answers most numbers written as + and digits from that table, without loading the library; a test
// compares the file with what this makes, so an upgrade of the library fails until the file is made again.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const tablePath = path.join(root, 'src', 'normalise', 'phone-calling-codes.ts');

// The library's own bounds: a calling code has at most three digits; a national number of fewer than two digits is
// refused before its length is looked at; the table covers national numbers of up to 14 digits (E.164: 15 in all).
const MAX_CALLING_CODE = 999;
const MIN_NATIONAL_LENGTH = 2;
const MAX_NATIONAL_LENGTH = 14;

/** Every calling code the library knows, with its national prefix for parsing and the lengths it calls possible. */
export function callingCodeTable() {
  const { PhoneNumberUtil } = require('google-libphonenumber');
  const util = PhoneNumberUtil.getInstance();
  const codes = [];
  for (let code = 1; code <= MAX_CALLING_CODE; code++) {
    const region = util.getRegionCodeForCountryCode(code);
    if (region === 'ZZ') continue;
    const metadata = util.getMetadataForRegionOrCallingCode_(code, region);
    if (metadata === null || metadata === undefined) throw new Error(`calling code ${code} has no metadata`);
    const lengths = [];
    for (let length = MIN_NATIONAL_LENGTH; length <= MAX_NATIONAL_LENGTH; length++) {
      // The library looks at the length alone here, not at the digits.
      if (util.testNumberLength_('5'.repeat(length), metadata) === PhoneNumberUtil.ValidationResult.IS_POSSIBLE) lengths.push(length);
    }
    codes.push([code, metadata.getNationalPrefixForParsing() ?? '', lengths]);
  }
  return { version: require('google-libphonenumber/package.json').version, codes };
}

/** The TypeScript module for a table, formatted as the project formats its sources. */
export async function renderTable(table) {
  const prettier = require('prettier');
  const entries = table.codes.map(([code, prefix, lengths]) => `  [${code}, ${JSON.stringify(prefix)}, [${lengths.join(', ')}]],`);
  const source = [
    `// Made by scripts/generate-phone-calling-codes.mjs from google-libphonenumber ${table.version}; run`,
    '// `npm run generate:phone-codes` after upgrading the library (a test compares this file with the library).',
    '',
    '/** Each calling code: its national prefix for parsing (a pattern; empty when none) and the possible lengths of a national number. */',
    'export const CALLING_CODES: readonly (readonly [code: number, nationalPrefixForParsing: string, possibleLengths: readonly number[]])[] = [',
    ...entries,
    '];',
    '',
  ].join('\n');
  return prettier.format(source, { ...(await prettier.resolveConfig(tablePath)), filepath: tablePath });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(tablePath, await renderTable(callingCodeTable()));
  process.stdout.write(`wrote ${path.relative(root, tablePath)}\n`);
}
