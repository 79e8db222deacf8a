-- Failed sign-ins against costly hashes were counted in each process, so a deployment of N cores allowed N times
-- the configured tries at one account (issue 52). The windows live here, shared by every core.
CREATE TABLE signin_failure_windows (
  scope text NOT NULL,
  key text NOT NULL,
  started_at bigint NOT NULL,
  failures integer NOT NULL,
  CONSTRAINT signin_failure_windows__pkey PRIMARY KEY (scope, key),
  CONSTRAINT signin_failure_windows__scope_check CHECK (scope IN ('account', 'client'))
);
CREATE INDEX signin_failure_windows__started_at_idx ON signin_failure_windows (started_at);
