-- A pointer without a login used to make sign-in ask the old provider about the user's current email: after an email
-- change the real user could never be adopted, and a new address that belongs to another account at the old provider
-- had that account's password adopted. Imports now write the imported email into the pointer; pointers stored before
-- get the email they have now, the closest to the old provider's address that is still known.
UPDATE users
SET password_hash = '$lazy$' || split_part(password_hash, '$', 3) || '$'
    || rtrim(translate(encode(convert_to(email, 'UTF8'), 'base64'), E'+/\n', '-_'), '=')
    || '$' || split_part(password_hash, '$', 5)
WHERE password_hash LIKE '$lazy$%' AND split_part(password_hash, '$', 4) = '' AND email IS NOT NULL;
