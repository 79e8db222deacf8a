-- Lazy migration: users imported with a pointer ($lazy$<source>$...) in place of a password hash are adopted at their
-- first sign-in, when the old provider confirms the password.

-- Pending users per source, for the status route and the reset campaign list (paged by user id).
CREATE INDEX users__lazy_source_idx ON users (split_part(password_hash, '$', 3), user_id) WHERE password_hash LIKE '$lazy$%';

-- One instance at a time asks the old provider about one user; a lease that outlives its holder expires.
CREATE TABLE lazy_migration_leases (
  user_id    text   NOT NULL,
  owner      text   NOT NULL,
  expires_at bigint NOT NULL,
  CONSTRAINT lazy_migration_leases__pkey PRIMARY KEY (user_id),
  CONSTRAINT lazy_migration_leases__user_id_fkey FOREIGN KEY (user_id) REFERENCES users (user_id) ON DELETE CASCADE
);

-- When and how each pending user was adopted: 'signin' when the old provider confirmed the password, 'replaced'
-- when a reset, a password update or a hash import replaced the pointer.
CREATE TABLE lazy_migration_events (
  user_id text   NOT NULL,
  source  text   NOT NULL,
  via     text   NOT NULL,
  at      bigint NOT NULL,
  CONSTRAINT lazy_migration_events__via_check CHECK (via IN ('signin', 'replaced')),
  CONSTRAINT lazy_migration_events__user_id_fkey FOREIGN KEY (user_id) REFERENCES users (user_id) ON DELETE CASCADE
);
CREATE INDEX lazy_migration_events__source_via_idx ON lazy_migration_events (source, via, at);
CREATE INDEX lazy_migration_events__user_id_idx ON lazy_migration_events (user_id);

-- Every path that replaces a pointer is recorded here, so no caller can forget it; the lazy sign-in marks its own
-- transaction with SET LOCAL identity_core.lazy_via = 'signin'.
CREATE FUNCTION lazy_migration_record_adoption() RETURNS trigger AS $$
BEGIN
  INSERT INTO lazy_migration_events (user_id, source, via, at)
  VALUES (NEW.user_id, split_part(OLD.password_hash, '$', 3),
          coalesce(nullif(current_setting('identity_core.lazy_via', true), ''), 'replaced'),
          (extract(epoch FROM clock_timestamp()) * 1000)::bigint);
  RETURN NEW;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER users__lazy_adoption_trigger
  AFTER UPDATE OF password_hash ON users
  FOR EACH ROW
  WHEN (OLD.password_hash LIKE '$lazy$%' AND NEW.password_hash IS DISTINCT FROM OLD.password_hash
        AND NEW.password_hash NOT LIKE '$lazy$%')
  EXECUTE FUNCTION lazy_migration_record_adoption();

-- Password reset tokens (the fallback for pending users after the deadline, and for everyone else). Only a SHA-256
-- digest of each token is kept, so a copy of the table cannot reset anybody's password.
CREATE TABLE emailpassword_reset_tokens (
  token_hash text   NOT NULL,
  user_id    text   NOT NULL,
  email      text   NOT NULL,
  expires_at bigint NOT NULL,
  CONSTRAINT emailpassword_reset_tokens__pkey PRIMARY KEY (token_hash),
  CONSTRAINT emailpassword_reset_tokens__user_id_fkey FOREIGN KEY (user_id) REFERENCES users (user_id) ON DELETE CASCADE
);
CREATE INDEX emailpassword_reset_tokens__user_id_idx ON emailpassword_reset_tokens (user_id);
