-- TOTP secrets are encrypted at rest (AES-256-GCM, docs/metadata-roles-totp.md "Secrets at rest"): secret_key holds
-- base64 of IV ‖ ciphertext ‖ tag and this column the id of the configured key that sealed it, so keys can rotate.
-- NULL marks a secret written in clear before this migration; the core seals those when it first starts with a key.
ALTER TABLE totp_devices ADD COLUMN secret_key_id text;
