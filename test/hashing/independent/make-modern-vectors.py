# Writes modern-vectors.json: hashes made by python3-passlib 1.7.4 (Debian) and by Python's hashlib following each
# producer's documented layout, never by this project's code. Run: /usr/bin/python3 make-modern-vectors.py
import base64, hashlib, hmac, json, os
from passlib import hash as ph

def b64(data): return base64.b64encode(data).decode()
out = []
def add(family, description, source, password, hash_):
    out.append({'family': family, 'description': description, 'source': source, 'password': password, 'hash': hash_})

P = 'pässwörd ✓ 密码'
add('PBKDF2', 'passlib pbkdf2_sha256', 'passlib.hash.pbkdf2_sha256.using(rounds=1000)', P, ph.pbkdf2_sha256.using(rounds=1000).hash(P))
add('PBKDF2', 'passlib pbkdf2_sha512', 'passlib.hash.pbkdf2_sha512.using(rounds=1000)', 'hunter2', ph.pbkdf2_sha512.using(rounds=1000).hash('hunter2'))
add('PBKDF2', 'passlib pbkdf2_sha1', 'passlib.hash.pbkdf2_sha1.using(rounds=1000)', 'hunter2', ph.pbkdf2_sha1.using(rounds=1000).hash('hunter2'))
add('PBKDF2', 'passlib ldap_pbkdf2_sha256', 'passlib.hash.ldap_pbkdf2_sha256.using(rounds=1000)', P, ph.ldap_pbkdf2_sha256.using(rounds=1000).hash(P))
add('PBKDF2', 'passlib atlassian_pbkdf2_sha1', 'passlib.hash.atlassian_pbkdf2_sha1', P, ph.atlassian_pbkdf2_sha1.hash(P))
add('PBKDF2', 'passlib django_pbkdf2_sha256', 'passlib.hash.django_pbkdf2_sha256.using(rounds=1000)', P, ph.django_pbkdf2_sha256.using(rounds=1000).hash(P))
add('PBKDF2', 'passlib django_pbkdf2_sha1', 'passlib.hash.django_pbkdf2_sha1.using(rounds=1000)', 'hunter2', ph.django_pbkdf2_sha1.using(rounds=1000).hash('hunter2'))

salt = os.urandom(16)
for digest, name in [('sha256', 'sha256'), ('sha512', 'sha512'), ('sha1', 'sha1'), ('sha3_256', 'sha3-256')]:
    dk = hashlib.pbkdf2_hmac(digest, P.encode(), salt, 2000, 32)
    add('PBKDF2', f'PHC pbkdf2-{name}', f'hashlib.pbkdf2_hmac({digest!r}, pw, salt, 2000, 32)', P,
        f'$pbkdf2-{name}$i=2000,l=32${b64(salt)}${b64(dk)}')
wsalt = 'Zx81ab_-QQ'
dk = hashlib.pbkdf2_hmac('sha256', P.encode(), wsalt.encode(), 5000)
add('PBKDF2', 'Werkzeug pbkdf2:sha256', 'hashlib.pbkdf2_hmac(sha256, pw, salt text, 5000) as hex', P, 'pbkdf2:sha256:5000$' + wsalt + '$' + dk.hex())
dk = hashlib.pbkdf2_hmac('sha512', b'hunter2', b'saltsalt', 3000)
add('PBKDF2', 'Werkzeug pbkdf2:sha512', 'hashlib.pbkdf2_hmac(sha512, pw, salt text, 3000) as hex', 'hunter2', f'pbkdf2:sha512:3000$saltsalt${dk.hex()}')

# ASP.NET Core Identity blobs, laid out as PasswordHasher writes them (big-endian header).
s16 = os.urandom(16)
sub = hashlib.pbkdf2_hmac('sha1', P.encode(), s16, 1000, 32)
add('ASPNET_IDENTITY', 'v2 blob', 'hashlib.pbkdf2_hmac(sha1, pw, salt, 1000, 32), 0x00|salt|subkey', P, b64(b'\x00' + s16 + sub))
for prf, digest, iters in [(1, 'sha256', 10000), (2, 'sha512', 20000)]:
    sub = hashlib.pbkdf2_hmac(digest, P.encode(), s16, iters, 32)
    blob = b'\x01' + prf.to_bytes(4, 'big') + iters.to_bytes(4, 'big') + (16).to_bytes(4, 'big') + s16 + sub
    add('ASPNET_IDENTITY', f'v3 blob {digest} {iters}', f'hashlib.pbkdf2_hmac({digest!r}, pw, salt, {iters}, 32), v3 header', P, b64(blob))

add('SCRYPT', 'passlib scrypt', 'passlib.hash.scrypt.using(rounds=10, block_size=8, parallelism=1)', P, ph.scrypt.using(rounds=10, block_size=8, parallelism=1).hash(P))
ssalt = os.urandom(16)
dk = hashlib.scrypt(P.encode(), salt=ssalt, n=1024, r=8, p=1, dklen=32)
add('SCRYPT', 'Kratos form (ln holds N)', 'hashlib.scrypt(pw, salt, n=1024, r=8, p=1, dklen=32), padded base64', P, f'$scrypt$ln=1024,r=8,p=1${b64(ssalt)}${b64(dk)}')
dk = hashlib.scrypt(P.encode(), salt=b'AbCdEfGh12345678', n=1024, r=8, p=1, dklen=64)
add('SCRYPT', 'Werkzeug scrypt', 'hashlib.scrypt(pw, salt text, n=1024, r=8, p=1, dklen=64) as hex', P, f'scrypt:1024:8:1$AbCdEfGh12345678${dk.hex()}')
dk = hashlib.scrypt(P.encode(), salt=b'djangosalt', n=1024, r=8, p=2, dklen=64)
add('SCRYPT', 'Django scrypt', 'hashlib.scrypt(pw, salt text, n=1024, r=8, p=2, dklen=64)', P, f'scrypt$1024$djangosalt$8$2${b64(dk)}')

add('BCRYPT_SHA256', 'passlib bcrypt_sha256 v2', 'passlib.hash.bcrypt_sha256.using(rounds=5)', P, ph.bcrypt_sha256.using(rounds=5).hash(P))
long72, long75 = 'x' * 72, 'x' * 75
add('BCRYPT_SHA256', 'passlib bcrypt_sha256 v2, 75 characters', 'passlib.hash.bcrypt_sha256.using(rounds=5)', long75, ph.bcrypt_sha256.using(rounds=5).hash(long75))
add('BCRYPT_SHA256', 'passlib bcrypt_sha256 v1', 'passlib.hash.bcrypt_sha256.using(rounds=5, version=1)', P, ph.bcrypt_sha256.using(rounds=5, version=1).hash(P))
add('BCRYPT_SHA256', 'passlib django_bcrypt_sha256', 'passlib.hash.django_bcrypt_sha256.using(rounds=5)', P, ph.django_bcrypt_sha256.using(rounds=5).hash(P))
json.dump({'made_by': 'python3-passlib 1.7.4 (Debian 1.7.4-3) and hashlib, Python ' + __import__('sys').version.split()[0], 'vectors': out},
          open(os.path.join(os.path.dirname(__file__) or '.', 'modern-vectors.json'), 'w'), ensure_ascii=False, indent=2)
