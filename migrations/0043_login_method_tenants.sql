-- A login method belongs to 0..n tenants (contract-multitenancy T-2). Membership is a row of login_method_tenants;
-- it carries copies of the login method's recipe id, email, phone number and third-party pair, so that the
-- per-tenant uniqueness rules stay partial unique indexes (they move here from `users`) and a sign-in in a tenant is
-- one index probe.
--
-- users.tenant_id stays, as the tenant a login method was created in: a trigger makes that first membership from it,
-- so bulk import keeps its one INSERT per batch. The recipes insert the membership first in the same statement (its
-- ON CONFLICT on the tenant's unique index is what used to be on `users`); the trigger then finds it there. It is never read as membership: M8 and tenant removal leave it as it
-- was. A second trigger copies changed contacts to every membership row, so a changed email is checked in every
-- tenant of the login method by the unique indexes here.
--
-- A primary user reserves each of its values once per tenant its login methods are in (primary_account_infos keeps
-- its key); membership changes made directly (association, removal, bulk import's further tenants) refresh the
-- primary users they touch. Every existing login method is in `public`.

CREATE TABLE login_method_tenants (
  tenant_id           text NOT NULL,
  user_id             text NOT NULL,
  recipe_id           text NOT NULL,
  email               text,
  phone_number        text,
  third_party_id      text,
  third_party_user_id text,
  CONSTRAINT login_method_tenants__pkey PRIMARY KEY (tenant_id, user_id),
  CONSTRAINT login_method_tenants__user_id_fkey FOREIGN KEY (user_id) REFERENCES users (user_id) ON DELETE CASCADE,
  CONSTRAINT login_method_tenants__tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants (tenant_id) ON DELETE CASCADE
);

INSERT INTO login_method_tenants (tenant_id, user_id, recipe_id, email, phone_number, third_party_id, third_party_user_id)
  SELECT 'public', user_id, recipe_id, email, phone_number, third_party_id, third_party_user_id FROM users;

CREATE INDEX login_method_tenants__user_id_idx ON login_method_tenants (user_id);
CREATE INDEX login_method_tenants__email_idx ON login_method_tenants (tenant_id, email);
CREATE UNIQUE INDEX login_method_tenants__emailpassword_email_key ON login_method_tenants (tenant_id, email)
  WHERE recipe_id = 'emailpassword';
CREATE UNIQUE INDEX login_method_tenants__passwordless_email_key ON login_method_tenants (tenant_id, email)
  WHERE recipe_id = 'passwordless' AND email IS NOT NULL;
CREATE UNIQUE INDEX login_method_tenants__passwordless_phone_number_key ON login_method_tenants (tenant_id, phone_number)
  WHERE recipe_id = 'passwordless' AND phone_number IS NOT NULL;
CREATE UNIQUE INDEX login_method_tenants__thirdparty_key ON login_method_tenants (tenant_id, third_party_id, third_party_user_id)
  WHERE recipe_id = 'thirdparty';
CREATE UNIQUE INDEX login_method_tenants__webauthn_email_key ON login_method_tenants (tenant_id, email)
  WHERE recipe_id = 'webauthn';

DROP INDEX users__emailpassword_email_key;
DROP INDEX users__passwordless_email_key;
DROP INDEX users__passwordless_phone_number_key;
DROP INDEX users__thirdparty_key;
DROP INDEX users__webauthn_email_key;
DROP INDEX users__email_idx;

-- A removed tenant takes the reservations made in it.
ALTER TABLE primary_account_infos ADD CONSTRAINT primary_account_infos__tenant_id_fkey
  FOREIGN KEY (tenant_id) REFERENCES tenants (tenant_id) ON DELETE CASCADE;

CREATE OR REPLACE FUNCTION account_groups_held_infos(groups text[])
  RETURNS TABLE (tenant_id text, info_type text, info_value text, group_id text) AS $$
  SELECT DISTINCT t.tenant_id, v.info_type, v.info_value, g.group_id
    FROM user_groups g
    JOIN user_ids i ON i.group_id = g.group_id
    JOIN users u ON u.user_id = i.user_id
    JOIN login_method_tenants t ON t.user_id = u.user_id
    CROSS JOIN LATERAL (VALUES ('email', u.email), ('phone', u.phone_number),
                               ('tparty', u.third_party_id || '::' || u.third_party_user_id)) AS v(info_type, info_value)
   WHERE g.group_id = ANY(groups) AND g.is_primary AND v.info_value IS NOT NULL
$$ LANGUAGE sql STABLE SET search_path FROM CURRENT;

-- Named so that it fires before users__after_insert_trigger (same event, names in order), whose refresh of linked
-- groups then sees the new memberships.
CREATE FUNCTION users_after_insert_tenants() RETURNS trigger AS $$
BEGIN
  INSERT INTO login_method_tenants (tenant_id, user_id, recipe_id, email, phone_number, third_party_id, third_party_user_id)
    SELECT n.tenant_id, n.user_id, n.recipe_id, n.email, n.phone_number, n.third_party_id, n.third_party_user_id FROM new_users n
  ON CONFLICT (tenant_id, user_id) DO NOTHING;
  RETURN NULL;
END
$$ LANGUAGE plpgsql SET search_path FROM CURRENT;

CREATE TRIGGER users__after_insert_tenants_trigger
  AFTER INSERT ON users REFERENCING NEW TABLE AS new_users
  FOR EACH STATEMENT EXECUTE FUNCTION users_after_insert_tenants();

CREATE FUNCTION users_after_update_tenants() RETURNS trigger AS $$
BEGIN
  UPDATE login_method_tenants t
     SET email = n.email, phone_number = n.phone_number, third_party_id = n.third_party_id,
         third_party_user_id = n.third_party_user_id
    FROM new_users n JOIN old_users o ON o.user_id = n.user_id
   WHERE t.user_id = n.user_id
     AND (n.email, n.phone_number, n.third_party_id, n.third_party_user_id)
         IS DISTINCT FROM (o.email, o.phone_number, o.third_party_id, o.third_party_user_id);
  RETURN NULL;
END
$$ LANGUAGE plpgsql SET search_path FROM CURRENT;

CREATE TRIGGER users__after_update_tenants_trigger
  AFTER UPDATE ON users REFERENCING OLD TABLE AS old_users NEW TABLE AS new_users
  FOR EACH STATEMENT EXECUTE FUNCTION users_after_update_tenants();

-- Memberships written from a trigger (the first one of a new login method, a cascade from users or tenants) are
-- refreshed by the users triggers or the cascade on primary_account_infos; the others refresh their primary users.
CREATE FUNCTION login_method_tenants_after_change() RETURNS trigger AS $$
DECLARE
  groups text[];
BEGIN
  IF pg_trigger_depth() > 1 THEN
    RETURN NULL;
  END IF;
  groups := ARRAY(
    SELECT DISTINCT i.group_id FROM changed c
      JOIN user_ids i ON i.user_id = c.user_id JOIN user_groups g ON g.group_id = i.group_id
     WHERE g.is_primary);
  IF cardinality(groups) > 0 THEN
    PERFORM account_groups_refresh(groups);
  END IF;
  RETURN NULL;
END
$$ LANGUAGE plpgsql SET search_path FROM CURRENT;

CREATE TRIGGER login_method_tenants__after_insert_trigger
  AFTER INSERT ON login_method_tenants REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION login_method_tenants_after_change();
CREATE TRIGGER login_method_tenants__after_delete_trigger
  AFTER DELETE ON login_method_tenants REFERENCING OLD TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION login_method_tenants_after_change();
