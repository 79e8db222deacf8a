// The layers of src/, top first: a module imports modules of its own layer or of layers below. `recipes/*` stands
// for every recipe not named in another layer (a new recipe lands there with nothing to add).
export const layers: readonly (readonly string[])[] = [
  // The composition root, the process and what is wired around every route.
  ['app.ts', 'server.ts', 'services.ts', 'per-user-stores.ts', 'healthcheck.ts', 'cli', 'core', 'metrics', 'openapi', 'plugins'],
  // Flows across recipes.
  ['bulk-import', 'session-bridge'],
  // Recipes with routes of their own.
  ['recipes/*'],
  // What login recipes hand work to: linking login methods, adopting a lazy-migration pointer at sign-in.
  ['account-linking', 'lazy-migration'],
  // Stores keeping data under a user id, which recipes and flows feed.
  ['recipes/session', 'recipes/emailverification', 'recipes/usermetadata', 'recipes/userroles'],
  // The user object and its login methods (the users table), user-id mapping, removal.
  ['users'],
  // What the composition root hands every service.
  ['service-deps.ts'],
  // Shared ground.
  ['keys', 'db', 'http', 'hashing', 'normalise', 'config', 'errors.ts', 'base32.ts', 'base64.ts', 'logger.ts'],
];

export function layerOf(module: string): number {
  const named = layers.findIndex((layer) => layer.includes(module));
  if (named >= 0) return named;
  if (module.startsWith('recipes/')) return layers.findIndex((layer) => layer.includes('recipes/*'));
  throw new Error(`${module} has no layer: add it to test/architecture/layers.ts and to ARCHITECTURE.md`);
}

/**
 * The arrows that run upward today, each a reason: ARCHITECTURE.md lists them. A new one fails the layers test; one
 * that goes away must leave this list too.
 */
export const knownUpwardArrows: readonly string[] = [
  // The config type and loader read the two feature blocks through the features' own parsers.
  'config -> lazy-migration',
  'config -> session-bridge',
];
