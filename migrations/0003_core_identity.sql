-- A random id for this database, created once. The migration command binds its saved progress to it, so
-- progress made against one core (staging) is never taken for progress against another (production).
CREATE TABLE core_identity (
  core_id    text        NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  singleton  boolean     NOT NULL DEFAULT true,
  CONSTRAINT core_identity__pkey PRIMARY KEY (singleton),
  CONSTRAINT core_identity__singleton_check CHECK (singleton)
);

INSERT INTO core_identity (core_id) VALUES (gen_random_uuid()::text);
