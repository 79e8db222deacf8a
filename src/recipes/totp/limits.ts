// Devices one user may hold, verified or not, at create, import and bulk import. The reference sets no bound; 10 is
// Supabase Auth's default for enrolled factors, more than anyone carries authenticators, and it bounds every code
// check to MAX_TOTP_DEVICES × (2·MAX_SKEW + 1) HMACs (docs/hostile-conditions.md).
export const MAX_TOTP_DEVICES = 10;
