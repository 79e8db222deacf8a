-- Every login method a bulk import creates gets its membership row (migration 0043), so each check on
-- login_method_tenants is paid once per imported user. The foreign key to users checked each new membership with a
-- row lock on its login method: a second write of every users row an import had just written. Memberships are only
-- written for a login method that the same statement or transaction inserts, or (association) with the login method
-- locked by that statement, so nothing breaks the key; what it did on delete and truncate, statement triggers do.

ALTER TABLE login_method_tenants DROP CONSTRAINT login_method_tenants__user_id_fkey;

-- Named so that it fires before users__after_delete_trigger (same event, names in order), as the foreign key's
-- cascade did.
CREATE FUNCTION users_after_delete_tenants() RETURNS trigger AS $$
BEGIN
  DELETE FROM login_method_tenants t WHERE t.user_id = ANY(ARRAY(SELECT o.user_id FROM old_users o));
  RETURN NULL;
END
$$ LANGUAGE plpgsql SET search_path FROM CURRENT;

CREATE TRIGGER users__after_delete_tenants_trigger
  AFTER DELETE ON users REFERENCING OLD TABLE AS old_users
  FOR EACH STATEMENT EXECUTE FUNCTION users_after_delete_tenants();

-- DELETE rather than TRUNCATE: a TRUNCATE naming both tables has the membership table open when this runs.
CREATE FUNCTION users_after_truncate_tenants() RETURNS trigger AS $$
BEGIN
  DELETE FROM login_method_tenants;
  RETURN NULL;
END
$$ LANGUAGE plpgsql SET search_path FROM CURRENT;

CREATE TRIGGER users__after_truncate_tenants_trigger
  AFTER TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION users_after_truncate_tenants();
