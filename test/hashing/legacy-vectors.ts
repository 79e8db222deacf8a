// Vectors for the legacy formats, each from a source other than the code under test: the published vector of
// the format's reference (hash-formats research note), other projects' test suites, and hashes made on a Debian
// system by OpenSSL, mkpasswd (whois 5.5.17, libxcrypt) and python3-passlib 1.7.4 with the commands quoted.
import type { Vector } from './vectors.js';

export interface SourcedVector extends Vector {
  source: string;
}

export const CRYPT_VECTORS: SourcedVector[] = [
  { description: 'md5-crypt', source: 'passlib test suite', password: 'test', hash: '$1$SuMrG47N$ymvzYjr7QcEQjaK5m1PGx1' },
  {
    description: 'sha256-crypt, default rounds',
    source: 'Drepper specification',
    password: 'Hello world!',
    hash: '$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5',
  },
  {
    description: 'sha512-crypt, default rounds',
    source: 'Drepper specification',
    password: 'Hello world!',
    hash: '$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1',
  },
  {
    description: 'sha512-crypt, explicit rounds=10000',
    source: 'Drepper specification',
    password: 'Hello world!',
    hash: '$6$rounds=10000$saltstringsaltst$OW1/O6BYHV6BcXZu8QVeXbDWra3Oeqh0sbHbbMCVNSnCM/UrjmM0Dp8vOuZeHBy/YTBmSK6H9qs/y3RnOaw5v.',
  },
  {
    description: 'md5-crypt, empty salt',
    source: 'DokuWiki auth_password test',
    password: 'foo',
    hash: '$1$$n1rTiFE0nRifwV/43bVon/',
  },
  {
    description: 'sha512-crypt, 16-character salt',
    source: 'DokuWiki auth_password test',
    password: 'foosha512',
    hash: '$6$abcdefgh12345678$J9.zOcgx0lotwZdcz0uulA3IVQMinZvFZVjA5vapRLVAAqtay23XD4xeeUxQ3B4JvDWYFBIxVWW1tOYlHX13k1',
  },
  {
    description: 'sha512-crypt, rounds=3000',
    source: 'DokuWiki auth_password test',
    password: 'Qwerty123',
    hash: '$6$rounds=3000$9in6UciYPFG6ydsJ$YBjypQ7XoRqvJoX1a2.spSysSVHcdreVXi1Xh5SyOxo2yNSxDjlUCun2YXrwk9.YP6vmRvCWrhp0fbPgSOT7..',
  },
  {
    description: 'md5-crypt, spaces in the password',
    source: "openssl passwd -1 -salt 'q8Jx3/.z' 'correct horse battery staple'",
    password: 'correct horse battery staple',
    hash: '$1$q8Jx3/.z$0m2pG03cNu1KWfO0ePqW./',
  },
  {
    description: 'md5-crypt, empty password',
    source: "mkpasswd -m md5crypt -S 'Ab3./xyZ' ''",
    password: '',
    hash: '$1$Ab3./xyZ$.d5F/AuBmXcvqzoW8/pzG/',
  },
  {
    description: 'sha256-crypt, non-ASCII password',
    source: "openssl passwd -5 -salt 'Zq1w2e3r4t5y6u7i' 'pässwörd'",
    password: 'pässwörd',
    hash: '$5$Zq1w2e3r4t5y6u7i$DMNYcZgiSg/34mFLG3W14UEoVIQ/s3ymDwg48t5hxL9',
  },
  {
    description: 'sha256-crypt, rounds=12345, non-ASCII password',
    source: "mkpasswd -m sha-256 -R 12345 -S 'abc/DEF.123' 'ünïcødé ✓'",
    password: 'ünïcødé ✓',
    hash: '$5$rounds=12345$abc/DEF.123$0IlU3HRX4801IR7meVUQQVtpGvJG.D04tuzGm22qJSB',
  },
  {
    description: 'sha512-crypt, default rounds, 8-character salt',
    source: "openssl passwd -6 -salt 'nL0.hR7s' 'Tr0ub4dor&3'",
    password: 'Tr0ub4dor&3',
    hash: '$6$nL0.hR7s$mlwVu7hVTiDxyf3w5nUZ5hzyQMaiBCLSPenyI9GHRP/FbNs3xTdqj7g6l8Nll/36kjelnZw8TC9a/mNy3jb.g0',
  },
  {
    description: 'sha256-crypt, passlib default rounds=535000',
    source: "passlib.hash.sha256_crypt.using(salt='pQ7/2.mN').hash('passlib sha256')",
    password: 'passlib sha256',
    hash: '$5$rounds=535000$pQ7/2.mN$ODSENhIRXqUWO6d9v4dbbYTtQBcgvqv.8H6OvKj20UD',
  },
  {
    description: 'md5-crypt from passlib',
    source: "passlib.hash.md5_crypt.using(salt='Rt5.Ky/0').hash('passlib md5')",
    password: 'passlib md5',
    hash: '$1$Rt5.Ky/0$koIUhl62SD9C4YUeHqT5i1',
  },
];

/**
 * Ulrich Drepper's SHA-crypt specification vectors not in CRYPT_VECTORS (also in glibc, libxcrypt and PHP's tests): a
 * salt over 16 characters is cut to 16, and rounds under 1000 become 1000 (the parse refuses the unraised form).
 */
export const SHA_CRYPT_PUBLISHED_VECTORS: SourcedVector[] = [
  ['$5$rounds=10000$saltstringsaltst$3xv.VbSHBb41AL9AvLeujZkZRBAwqFMz2.opqey6IcA', 'Hello world!'],
  ['$5$rounds=5000$toolongsaltstrin$Un/5jzAHMgOGZ5.mWJpuVolil07guHPvOW8mGRcvxa5', 'This is just a test'],
  [
    '$5$rounds=1400$anotherlongsalts$Rx.j8H.h8HjEDGomFU8bDkXm3XIUnzyxf12oP84Bnq1',
    'a very much longer text to encrypt.  This one even stretches over morethan one line.',
  ],
  ['$5$rounds=77777$short$JiO1O3ZpDAxGJeaDIuqCoEFysAe1mZNJRs3pw0KQRd/', 'we have a short salt string but not a short password'],
  ['$5$rounds=123456$asaltof16chars..$gP3VQ/6X7UUEW3HkBn2w1/Ptq2jxPyzV/cZKmF/wJvD', 'a short string'],
  ['$5$rounds=1000$roundstoolow$yfvwcWrQ8l/K0DAWyuPMDNHpIVlTQebY9l/gL972bIC', 'the minimum number is still observed'],
  ['$6$rounds=5000$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1', 'Hello world!'],
  [
    '$6$rounds=5000$toolongsaltstrin$lQ8jolhgVRVhY4b5pZKaysCLi0QBxGoNeKQzQ3glMhwllF7oGDZxUhx1yxdYcz/e1JSbq3y6JMxxl8audkUEm0',
    'This is just a test',
  ],
  [
    '$6$rounds=1400$anotherlongsalts$POfYwTEok97VWcjxIiSOjiykti.o/pQs.wPvMxQ6Fm7I6IoYN3CmLs66x9t0oSwbtEW7o7UmJEiDwGqd8p4ur1',
    'a very much longer text to encrypt.  This one even stretches over morethan one line.',
  ],
  [
    '$6$rounds=77777$short$WuQyW2YR.hBNpjjRhpYD/ifIw05xdfeEyQoMxIXbkvr0gge1a1x3yRULJ5CCaUeOxFmtlcGZelFl5CxtgfiAc0',
    'we have a short salt string but not a short password',
  ],
  [
    '$6$rounds=123456$asaltof16chars..$BtCwjqMJGx5hrJhZywWvt0RLE8uZ4oPwcelCjmw2kSYu.Ec6ycULevoBK25fs2xXgMNrCzIMVcgEJAstJeonj1',
    'a short string',
  ],
  [
    '$6$rounds=1000$roundstoolow$kUMsbe306n21p9R.FRkW3IGn.S9NPN0x50YhH1xhLsPuWGsUSklZt58jaTfF4ZEQpyUNGc0dqbpBYYBaHHrsX.',
    'the minimum number is still observed',
  ],
  // PHP's crypt_sha512 test: an empty salt.
  ['$6$$QMXjqd7rHQZPQ1yHsXkQqC1FBzDiVfTHXL.LaeDAeVV.IzMaV9VU4MQ8kPuZa2SOP1A0RPm772EaFYjpEJtdu.', 'foo'],
].map(([hash, password]) => ({
  description: `${hash.slice(0, hash.lastIndexOf('$'))}`,
  source: hash.includes('$$') ? 'PHP crypt_sha512 test' : 'Drepper specification',
  password,
  hash,
}));

/**
 * Passwords whose round inputs span several SHA-2 blocks (up to 2 × 255 bytes of P per round), multi-byte UTF-8
 * and salts of every length class, made by libxcrypt (whois 5.5.x mkpasswd) and OpenSSL with the commands quoted.
 */
export const SHA_CRYPT_INDEPENDENT_VECTORS: SourcedVector[] = [
  {
    description: 'sha512-crypt, 255-byte password',
    source: 'mkpasswd -m sha-512 -R 1000 -S \'Zz9.Yy8/\' "$(python3 -c "print(\'L\'*255)")"',
    password: 'L'.repeat(255),
    hash: '$6$rounds=1000$Zz9.Yy8/$2eQMihkcDiUfRPMTXzHmlIDmn3HZSvrYW1jeI9vp2bdIFCXZX6FmYw40M95JMOcZvXwhoNsKhmIr9djbzC1M51',
  },
  {
    description: 'sha256-crypt, 255-byte password, 15-character salt',
    source: 'mkpasswd -m sha-256 -R 1000 -S \'Zz9.Yy8/Xx7.Ww6\' "$(python3 -c "print(\'L\'*255)")"',
    password: 'L'.repeat(255),
    hash: '$5$rounds=1000$Zz9.Yy8/Xx7.Ww6$VTDe13TnJ4OaTG5tlw7lDmbKYCHBAQXpgtErslwu2A/',
  },
  {
    description: 'sha256-crypt, 119-byte password, 16-character salt',
    source: 'mkpasswd -m sha-256 -R 4321 -S \'sixteencharsalt.\' "$(python3 -c "print(\'p\'*119)")"',
    password: 'p'.repeat(119),
    hash: '$5$rounds=4321$sixteencharsalt.$E8pd/HDNkNFDp7KfPHBFFnKpn.IFArouwoxE6q0T1U7',
  },
  {
    description: 'sha512-crypt, 120 bytes of two-byte UTF-8, odd rounds',
    source: 'mkpasswd -m sha-512 -R 1001 -S \'eeeeeeee\' "$(python3 -c "print(\'ä\'*60)")"',
    password: 'ä'.repeat(60),
    hash: '$6$rounds=1001$eeeeeeee$sAkOhKQydg5ZLni9OduBppbjwVh8WPejtaYy5HTgqbx5EnkXK/ip5FgNTOBEcob0xQC3s3v6qySxR4BT7gHho/',
  },
  {
    description: 'sha512-crypt, 511-byte password (libxcrypt takes at most 511)',
    source: 'mkpasswd -m sha-512 -R 1000 -S \'longpwlongpw\' "$(python3 -c "print(\'k\'*511)")"',
    password: 'k'.repeat(511),
    hash: '$6$rounds=1000$longpwlongpw$sw8WpSSO8xifFupCNO9yos5ee1oKuapo3ZYuItGlJM9r2tGbV.20DwcqnkNq4Oo7ozRcPuKaERUajtzYJ9yT81',
  },
  {
    description: 'sha256-crypt, 511-byte password',
    source: 'mkpasswd -m sha-256 -R 1000 -S \'longpwlongpw\' "$(python3 -c "print(\'k\'*511)")"',
    password: 'k'.repeat(511),
    hash: '$5$rounds=1000$longpwlongpw$On7QdGOiiNPbTIwOfsiKxsFdsMmuctnL67M4Jp//S17',
  },
  {
    description: 'sha512-crypt, 1024-byte password cut to 256 by OpenSSL, hashed as 256',
    source: 'openssl passwd -6 -salt \'longpw\' "$(python3 -c "print(\'k\'*1024)")" (OpenSSL warns: truncating password to 256 characters)',
    password: 'k'.repeat(256),
    hash: '$6$longpw$4bUKCbFFPmTHY.8h1K0z4TqzuXGXG.b2pUcXrBomDVDqhPn7Uy15zKhyl5No0smCOzOUvl113UcWgTjvysVtC/',
  },
  {
    description: 'sha256-crypt, one-character salt',
    source: "openssl passwd -5 -salt 'e' 'x'",
    password: 'x',
    hash: '$5$e$CIQ/dGwcEUi4d0WrPfNWbGqYzovHE2MLlP1BnB42k7C',
  },
];

/** The slowest realistic case, kept apart so that only one test pays for it. */
export const SHA512_CRYPT_656000: SourcedVector = {
  description: 'sha512-crypt, rounds=656000 (passlib default)',
  source: "mkpasswd -m sha-512 -R 656000 -S 'Fq8kz0Pm3Xw1Ab2C' 'hunter2'",
  password: 'hunter2',
  hash: '$6$rounds=656000$Fq8kz0Pm3Xw1Ab2C$fsM6CGe47DFKvfhRr6FpAUs3EoqtDFjwKQvYyh2UnXfVxdC8DDD11SMLKtnlF9254kF0B3giCpierOpsXcjQz/',
};

export const PHPASS_VECTORS: SourcedVector[] = [
  { description: '$P$ (phpass 0.3)', source: 'passlib test suite', password: 'test12345', hash: '$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0' },
  {
    description: 'Drupal 7 $S$',
    source: 'Drupal PasswordVerifyTest',
    password: 'valid password',
    hash: '$S$5TOxWPdvJRs0P/xZBdrrPlGgzViOS0drHu3jaIjitesfttrp18bk',
  },
  { description: '$H$ (phpBB)', source: 'DokuWiki auth_password test', password: 'test12345', hash: '$H$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0' },
  {
    description: 'Drupal 7 $S$, 2^15 rounds',
    source: 'DokuWiki auth_password test',
    password: 'drupal_sha512',
    hash: '$S$D7JxIm0f7QKO3zjwVS1RH4AW8sYvmLjO0.Rn4swH0JVt6OrZ4yzZ',
  },
  {
    description: 'Drupal 7 $S$, 2^14 rounds',
    source: 'John the Ripper drupal7 format tests',
    password: 'virtualabc',
    hash: '$S$CwkjgAKeSx2imSiN3SyBEg8e0sgE2QOx4a/VIfCHN0BZUNAWCr1X',
  },
  {
    description: 'Drupal 6 user moved to 7, U$S$',
    source: 'DokuWiki auth_password test',
    password: 'pouette1234',
    hash: 'U$S$9c47LGZuhR6TvhRQXzymkJIQ3mXthUCc6KDEGTt4B7eOL/H9Ykuy',
  },
  {
    description: 'Drupal 6 user moved to 7, U$S$, 2^7 rounds',
    source: 'Drupal PasswordVerifyTest (layered hash)',
    password: 'valid password',
    hash: 'U$S$5vNHDQyLqCTvsYBLWBUWXJWhA0m3DTpBh04acFEOGB.bKBclhKgo',
  },
  {
    description: 'WordPress $P$B, non-ASCII password',
    source: "passlib.hash.phpass.using(salt='Zk4.mP9q', rounds=13).hash('wordpress pässword')",
    password: 'wordpress pässword',
    hash: '$P$BZk4.mP9q9.8kF1xfbTJcnU8KkA66l0',
  },
  {
    description: 'phpBB $H$9',
    source: "passlib.hash.phpass.using(salt='aB3/xY7.', rounds=11, ident='H').hash('phpbb password')",
    password: 'phpbb password',
    hash: '$H$9aB3/xY7.NzPHSMYcS/aMz29A05koF0',
  },
];

export const LDAP_VECTORS: SourcedVector[] = [
  { description: '{SSHA}', source: 'passlib test suite', password: 'testing123', hash: '{SSHA}0c0blFTXXNuAMHECS4uxrj3ZieMoWImr' },
  {
    description: '{SSHA256}',
    source: 'passlib test suite',
    password: 'password',
    hash: '{SSHA256}x1tymSTVjozxQ2PtT46ysrzhZxbcskK0o2f8hEFx7fAQQmhtDSEkJA==',
  },
  {
    description: '{SSHA512}',
    source: 'passlib test suite',
    password: 'toomanysecrets',
    hash: '{SSHA512}wExp4xjiCHS0zidJDC4UJq9EEeIebAQPJ1PWSwfhxWjfutI9XiiKuHm2AE41cEFfK+8HyI8bh+ztbczUGsvVFIgICWWPt7qu',
  },
  { description: '{SHA}', source: 'passlib test suite', password: 'helloworld', hash: '{SHA}at+xg6SiyUovktq1redipHiJpaE=' },
  { description: '{MD5}', source: 'passlib test suite', password: 'helloworld', hash: '{MD5}/F4DjTilcDIIVEHn/nAQsA==' },
  { description: '{SMD5}', source: 'passlib test suite', password: 'testing1234', hash: '{SMD5}UjFY34os/pnZQ3oQOzjqGu4yeXE=' },
  { description: '{CRYPT} md5-crypt', source: 'passlib test suite', password: 'test', hash: '{CRYPT}$1$SuMrG47N$ymvzYjr7QcEQjaK5m1PGx1' },
  {
    description: '{SSHA}, DokuWiki',
    source: 'DokuWiki auth_password test',
    password: 'foossha',
    hash: '{SSHA}QMHG+uC7bHNYKkmoLbNsNI38/dJhYmNk',
  },
  {
    description: '{SMD5}, DokuWiki',
    source: 'DokuWiki auth_password test',
    password: 'foolsmd5',
    hash: '{SMD5}HGbkPrkWgy9KgcRGWlrsUWFiY2RlZmdo',
  },
  {
    description: '{SSHA}, 8-byte binary salt',
    source: "passlib.hash.ldap_salted_sha1.using(salt=b'\\x01\\x02\\x03\\x04\\xfe\\xff\\x00\\x10').hash('ldap ssha')",
    password: 'ldap ssha',
    hash: '{SSHA}xoxkUfGrZGoAJUo90vliWqYc+3kBAgME/v8AEA==',
  },
  {
    description: '{SSHA256}, non-ASCII password',
    source: "passlib.hash.ldap_salted_sha256.using(salt=b'0123456789abcdef').hash('ldap ssha256 ✓')",
    password: 'ldap ssha256 ✓',
    hash: '{SSHA256}xYOd1vl+BpcHyxSBIXIMHCjfZQ1U5/8XgbDS5Ouki8cwMTIzNDU2Nzg5YWJjZGVm',
  },
  {
    description: '{SSHA512}, zero salt',
    source: "passlib.hash.ldap_salted_sha512.using(salt=b'\\x00' * 4).hash('ldap ssha512')",
    password: 'ldap ssha512',
    hash: '{SSHA512}/TXarkNeJdP2s/LlbSWevgpRSyZDmKhSTZ8biOZ2A9Qq2+QSMP/ITyINwJ7O5WjCTRiM/h/eYHa/8vrqCfaQEQAAAAA=',
  },
  {
    description: '{SMD5}, passlib',
    source: "passlib.hash.ldap_salted_md5.using(salt=b'salt').hash('ldap smd5')",
    password: 'ldap smd5',
    hash: '{SMD5}DdsWnVA4287LxCcZsFRZG3NhbHQ=',
  },
  {
    description: '{SHA}, passlib',
    source: "passlib.hash.ldap_sha1.hash('ldap sha')",
    password: 'ldap sha',
    hash: '{SHA}Qnm/Fot5sxjBioiBe+z2s1qpr4U=',
  },
  {
    description: '{MD5}, passlib',
    source: "passlib.hash.ldap_md5.hash('ldap md5')",
    password: 'ldap md5',
    hash: '{MD5}jdsNyqnBySdpIRkGT3rUuQ==',
  },
  {
    description: '{CRYPT} sha512-crypt',
    source: "passlib.hash.ldap_sha512_crypt.using(salt='Ld4pSa1t', rounds=5000).hash('ldap crypt')",
    password: 'ldap crypt',
    hash: '{CRYPT}$6$Ld4pSa1t$WmCTHVDXyCZEQ1k3a9/kGBwyWdafQ4Ez1WbJswgsBxk/nxf44/PN.btBdPq2TaNsB65FIYkCi2jLT5avQaJQU1',
  },
  {
    description: '{CRYPT} md5-crypt, passlib',
    source: "passlib.hash.ldap_md5_crypt.using(salt='x9/Lq.2R').hash('ldap md5crypt')",
    password: 'ldap md5crypt',
    hash: '{CRYPT}$1$x9/Lq.2R$YkufU4yB4K.86mWN6vZZ7/',
  },
];

// Python's hashlib and hmac below: b = base64.b64encode; the template form is
// f"${alg}$pf={b(template)}${b(salt)}${b(hashlib.new(alg, template with {SALT}/{PASSWORD} replaced).digest())}".
export const SALTED_DIGEST_VECTORS: SourcedVector[] = [
  {
    description: 'template {SALT}{PASSWORD}, sha256',
    source: 'Kratos hasher test',
    password: 'test',
    hash: '$sha256$pf=e1NBTFR9e1BBU1NXT1JEfQ==$NW9wbWtnejAzcg==$0gfRVLCvtBCk20udLDEY5vNhujWx7RGjwRIS1ebMsLY=',
  },
  {
    description: 'Django sha1$salt$hex',
    source: 'Django hasher test',
    password: 'lètmein',
    hash: 'sha1$seasalt$cff36ea83f5706ce9aa7454e63e431fc726b2dc8',
  },
  {
    description: 'Django md5$salt$hex',
    source: 'DokuWiki auth_password test',
    password: 'foodjangomd5',
    hash: 'md5$abcde$d0fdddeda8cd92725d2b54148ac09158',
  },
  {
    description: 'Django sha1$salt$hex, DokuWiki',
    source: 'DokuWiki auth_password test',
    password: 'foodjangosha1',
    hash: 'sha1$abcde$c8e65a7f0acc9158843048a53dcc5a6bc4d17678',
  },
  {
    description: 'Django md5$salt$hex, passlib',
    source: "passlib.hash.django_salted_md5.using(salt='pepper').hash('django md5')",
    password: 'django md5',
    hash: 'md5$pepper$ee482c1369d469d8ef26e0d8689b402d',
  },
  {
    description: 'Django sha1$salt$hex, passlib',
    source: "passlib.hash.django_salted_sha1.using(salt='pepper1').hash('django sha1')",
    password: 'django sha1',
    hash: 'sha1$pepper1$32a42d000c0162193b831479be61ebd6ace573ca',
  },
  {
    description: 'template {PASSWORD}{SALT}, sha512, non-ASCII',
    source: "hashlib, template '{PASSWORD}{SALT}', salt b'NaCl-42', password 'suffix salt ✓'",
    password: 'suffix salt ✓',
    hash: '$sha512$pf=e1BBU1NXT1JEfXtTQUxUfQ==$TmFDbC00Mg==$nt5frvclB2Q2M5sqBW4aVMlpIXWTVdnVUFDfgWLPSbHDMWNrotsmyXWOnQKteYHBQkEzCNnNaln7suPDl5kdeQ==',
  },
  {
    description: 'template with a literal separator and a binary salt, sha1',
    source: "hashlib, template '{SALT}::{PASSWORD}', salt b'\\x00\\x01binary', password 'separated'",
    password: 'separated',
    hash: '$sha1$pf=e1NBTFR9Ojp7UEFTU1dPUkR9$AAFiaW5hcnk=$VF+9QTUaD4uF69PwxU5RgFRi52o=',
  },
  {
    description: 'template with the salt twice, md5',
    source: "hashlib, template '{SALT}{PASSWORD}{SALT}', salt b'pepper', password 'both sides'",
    password: 'both sides',
    hash: '$md5$pf=e1NBTFR9e1BBU1NXT1JEfXtTQUxUfQ==$cGVwcGVy$NtVmbkm9bV0jBaNn/7gj8w==',
  },
  { description: 'unsalted $md5$', source: "hashlib.md5('unsalted md5')", password: 'unsalted md5', hash: '$md5$4hc3H1lhZjQYLNm9cbNmSg==' },
  {
    description: 'Django unsalted md5$$hex',
    source: "hashlib.md5('django unsalted')",
    password: 'django unsalted',
    hash: 'md5$$ca1845068e0437b50c6b445f05b6f70c',
  },
  {
    description: 'Django unsalted sha1$$hex',
    source: "hashlib.sha1('django unsalted sha1')",
    password: 'django unsalted sha1',
    hash: 'sha1$$5a3484efc8bd3e9f851e3891357f82591b7642d3',
  },
];

// f"$hmac-{alg}${b(hmac.new(key, password, alg).digest())}${b(key)}" with key f'key-{alg}', password f'hmac {alg} pässword'.
export const HMAC_VECTORS: SourcedVector[] = [
  {
    description: 'Kratos hex-text form, sha256',
    source: 'Kratos hasher test',
    password: 'test',
    hash: '$hmac-sha256$ZTAzMWJhMWMyOTM4YjFkMjgzZjkxOWExZGY5YWM2NmMxOTJhN2RkNzQ0MzJkNWZkNGFkYTI5OTk0MWJhMTA5Zg==$MTIzNDU=',
  },
  ...(
    [
      ['md5', '0jfMk/6LdLCxBhJ7+fduCg==', 'a2V5LW1kNQ=='],
      ['sha1', '54EQIk5hQPuuRMxjF4QFaE25nr8=', 'a2V5LXNoYTE='],
      ['sha224', 'WgOPRe+szU3+efY63N5cwokgk9PhoLd0N0M4Kw==', 'a2V5LXNoYTIyNA=='],
      ['sha256', 'aUmFf4qJbyM7njv53i9kYbBY6PHG1ldyC0mBePxBF/U=', 'a2V5LXNoYTI1Ng=='],
      ['sha384', 'oHWUBAZVENbgi33EEiqhKQnq62MD0BeA8Bu7/Ed620zoBEtafNukjOKHSWvnV+cW', 'a2V5LXNoYTM4NA=='],
      ['sha512', '0N9nZs2UmKuozdy8jKbUwNRDJwqyaT5lrUuXdD4u6lIzfkJpQJXbdDARJ08uiW15hdUqHTmAE3RRMmnu0PnnpA==', 'a2V5LXNoYTUxMg=='],
    ] as const
  ).map(([algorithm, mac, key]) => ({
    description: `raw MAC, ${algorithm}`,
    source: 'Python hmac',
    password: `hmac ${algorithm} pässword`,
    hash: `$hmac-${algorithm}$${mac}$${key}`,
  })),
  {
    description: 'hex-text form, sha512',
    source: "Python hmac, b(hmac.new(b'k3y', 'hex form', 'sha512').hexdigest().encode())",
    password: 'hex form',
    hash: '$hmac-sha512$OWJlMTA4N2QxZTllMzkxMTZmMWU4ZDk4NjQ0NzM1ZGUxOTNlMTE0YmU5ODFlZjcwNTU1N2JmZGE5NWJmY2VmNGJjZWZhYjEwNjM5OGVjNmZmMTY4NGZiNmExZmE2YTJiODJjMWIzNGE0Y2MzNWRiN2M5YWZjMzY1MTNiYmU0MjE=$azN5',
  },
];
