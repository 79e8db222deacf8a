#!/bin/sh
# Regenerates vectors.json: TOTP codes computed by OATH Toolkit's oathtool (Debian package `oathtool`, 2.6.7) from
# keys written in each encoding a provider exports, with coreutils base32/base64 and xxd as the encoders.
# Run from this folder: sh generate.sh > vectors.json
set -eu
times="59 1111111109 1700000000 2000000000"
first=1
emit() { # encoding secretKey hexKey algorithm digits period extra-json
  enc=$1; secret=$2; hex=$3; alg=$4; digits=$5; period=$6; extra=$7
  codes=""
  for t in $times; do
    code=$(oathtool --totp="$alg" --digits="$digits" --time-step-size="${period}s" --now="@$t" "$hex")
    codes="$codes${codes:+,}{\"unixTime\":$t,\"code\":\"$code\"}"
  done
  [ $first -eq 1 ] || printf ',\n'
  first=0
  printf '  {"secretEncoding":"%s","secretKey":"%s","algorithm":"%s","digits":%s,"period":%s%s,"codes":[%s]}' \
    "$enc" "$secret" "$alg" "$digits" "$period" "$extra" "$codes"
}
printf '[\n'
for bytes in 10 16 20 32 64; do
  hex=$(head -c "$bytes" /dev/urandom | xxd -p | tr -d '\n')
  b32=$(printf '%s' "$hex" | xxd -r -p | base32 -w0)
  b64=$(printf '%s' "$hex" | xxd -r -p | base64 -w0)
  emit base32 "$b32" "$hex" SHA1 6 30 ''
  emit base32 "$(printf '%s' "$b32" | tr -d '=' | tr 'A-Z' 'a-z' | sed 's/..../& /g; s/ $//')" "$hex" SHA1 6 30 ''
  emit hex "$hex" "$hex" SHA256 8 30 ''
  emit base64 "$b64" "$hex" SHA512 6 30 ''
  emit otpauth "otpauth://totp/Acme:alice%40example.com?secret=$(printf '%s' "$b32" | tr -d '=')&issuer=Acme&algorithm=SHA256&digits=8&period=60" \
    "$hex" SHA256 8 60 ',"fromUrl":true'
done
# Keycloak's default: the UTF-8 bytes of the stored text are the key.
for raw in 'kC9xQ2LmP7vRt4Wz8NbY' 'a secret with spaces 12'; do
  emit raw "$raw" "$(printf '%s' "$raw" | xxd -p | tr -d '\n')" SHA1 6 30 ''
done
printf '\n]\n'
