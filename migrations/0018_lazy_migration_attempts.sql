-- Calls to a pending user's old provider are capped per user and hour, so nobody can lock the user out there by
-- guessing through this core. The count lives here, not in each process, so the cap holds however many core
-- instances share the database (an in-memory count gave every instance a cap of its own).
CREATE TABLE lazy_migration_attempts (
  user_id      text    NOT NULL,
  window_start bigint  NOT NULL,
  attempts     integer NOT NULL,
  CONSTRAINT lazy_migration_attempts__pkey PRIMARY KEY (user_id),
  CONSTRAINT lazy_migration_attempts__attempts_check CHECK (attempts >= 0),
  CONSTRAINT lazy_migration_attempts__user_id_fkey FOREIGN KEY (user_id) REFERENCES users (user_id) ON DELETE CASCADE
);
