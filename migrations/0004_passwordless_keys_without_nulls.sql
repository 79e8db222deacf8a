-- A passwordless user may have an email, a phone number or both, so each of the two passwordless unique indexes
-- also held the users that lack its column. Without statistics (a fresh install; autovacuum off or outrun by an
-- import) the planner then finds the email index as cheap as the phone one for a phone lookup, and may pick it:
-- it reads every passwordless user of the tenant and filters on the phone number. Leaving the NULLs out changes
-- nothing for uniqueness (NULLs never collide) and makes each index unusable for the other column's lookups.
-- The names stay: errors are translated by constraint name. Rebuilding locks the users table for writes while
-- it runs (seconds per million passwordless users).
DROP INDEX users__passwordless_email_key;
CREATE UNIQUE INDEX users__passwordless_email_key ON users (tenant_id, email)
  WHERE recipe_id = 'passwordless' AND email IS NOT NULL;
DROP INDEX users__passwordless_phone_number_key;
CREATE UNIQUE INDEX users__passwordless_phone_number_key ON users (tenant_id, phone_number)
  WHERE recipe_id = 'passwordless' AND phone_number IS NOT NULL;
