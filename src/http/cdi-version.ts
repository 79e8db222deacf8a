export interface CdiVersion {
  text: string;
  parts: number[];
}

export const supportedCdiVersions = [
  '2.7',
  '2.8',
  '2.9',
  '2.10',
  '2.11',
  '2.12',
  '2.13',
  '2.14',
  '2.15',
  '2.16',
  '2.17',
  '2.18',
  '2.19',
  '2.20',
  '2.21',
  '3.0',
  '3.1',
  '4.0',
  '5.0',
  '5.1',
  '5.2',
  '5.3',
  '5.4',
  '5.5',
  '5.6',
];

export const newestCdiVersion = parseCdiVersion('5.6')!;

// [DEVIATION] /apiversion lists from 2.21. An SDK calls every route at the newest version it shares with that list,
// and sessions and JWTs are served from 2.21 only (the legacy token versions are not): an SDK speaking only older
// versions now finds none in common and stops at its first call with its own "not compatible" error, instead of
// signing users in and failing at the first session. Requests naming 2.7 to 2.20 are still served where the route is.
const oldestListedCdiVersion = parseCdiVersion('2.21')!;

/** The versions /apiversion lists: those every route serves, up to the configured maximum. */
export function listedCdiVersions(max: CdiVersion): string[] {
  return supportedCdiVersions.filter((text) => {
    const version = parseCdiVersion(text)!;
    return compareCdiVersions(version, oldestListedCdiVersion) >= 0 && compareCdiVersions(version, max) <= 0;
  });
}

export function parseCdiVersion(text: string): CdiVersion | undefined {
  if (!/^[0-9]+(\.[0-9]+)*$/.test(text)) return undefined;
  return { text, parts: text.split('.').map(Number) };
}

export function compareCdiVersions(a: CdiVersion, b: CdiVersion): number {
  const length = Math.max(a.parts.length, b.parts.length);
  for (let i = 0; i < length; i++) {
    const difference = (a.parts[i] ?? 0) - (b.parts[i] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

// The minimums routes and the user object ask for are a few literals, each parsed once rather than on every call.
const parsedMinimums = new Map<string, CdiVersion>();

export function cdiAtLeast(version: CdiVersion, minimum: string): boolean {
  let parsed = parsedMinimums.get(minimum);
  if (parsed === undefined) parsedMinimums.set(minimum, (parsed = parseCdiVersion(minimum)!));
  return compareCdiVersions(version, parsed) >= 0;
}

export function isSupportedCdiVersion(version: CdiVersion): boolean {
  return supportedCdiVersions.includes(version.text);
}
