// AssemblyScript: the SHA-crypt rounds loop (Drepper's steps 21 and after), compiled to WebAssembly by
// `npm run build:wasm` into src/hashing/sha-crypt-wasm.generated.ts. One call to node:crypto per round costs about
// 3 µs here, ten times the hash itself; this loop runs the SHA-2 compression functions on memory it owns instead.
//
// The caller writes a job at `jobBase()`: a table of 42 entries (byte offset of a round layout from the job start,
// its number of blocks, the offset of the digest slot in it; three u32 each), the initial digest (64 bytes), then
// the 42 layouts, each already padded as SHA-2 pads a message of its length. Round i uses layout i mod 42 with the
// previous digest copied into its slot; the result is left in the digest field.

const LAYOUTS: u32 = 42;
const TABLE_BYTES: u32 = LAYOUTS * 12;
const DIGEST_OFFSET: u32 = TABLE_BYTES;

const K256 = memory.data<u32>([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
  0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
  0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
  0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
  0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const K512 = memory.data<u64>([
  0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc, 0x3956c25bf348b538, 0x59f111f1b605d019,
  0x923f82a4af194f9b, 0xab1c5ed5da6d8118, 0xd807aa98a3030242, 0x12835b0145706fbe, 0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2,
  0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235, 0xc19bf174cf692694, 0xe49b69c19ef14ad2, 0xefbe4786384f25e3,
  0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65, 0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5,
  0x983e5152ee66dfab, 0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4, 0xc6e00bf33da88fc2, 0xd5a79147930aa725,
  0x06ca6351e003826f, 0x142929670a0e6e70, 0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed, 0x53380d139d95b3df,
  0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b, 0xa2bfe8a14cf10364, 0xa81a664bbc423001,
  0xc24b8b70d0f89791, 0xc76c51a30654be30, 0xd192e819d6ef5218, 0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8,
  0x19a4c116b8d2d0c8, 0x1e376c085141ab53, 0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8, 0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb,
  0x5b9cca4f7763e373, 0x682e6ff3d6b2b8a3, 0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
  0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b, 0xca273eceea26619c, 0xd186b8c721c0c207,
  0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178, 0x06f067aa72176fba, 0x0a637dc5a2c898a6, 0x113f9804bef90dae, 0x1b710b35131c471b,
  0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc, 0x431d67c49c100d4c, 0x4cc5d4becb3e42b6, 0x597f299cfc657e2a,
  0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
]);

const IV256 = memory.data<u32>([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
const IV512 = memory.data<u64>([
  0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1, 0x510e527fade682d1, 0x9b05688c2b3e6c1f,
  0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
]);

const W = memory.data(80 * 8);
const STATE = memory.data(8 * 8);

/** Where the caller writes the job; the memory above it is free. */
export function jobBase(): usize {
  return __heap_base;
}

export function sha256Rounds(rounds: u32): void {
  const job = __heap_base;
  for (let round: u32 = 0; round < rounds; round++) {
    const entry = job + (round % LAYOUTS) * 12;
    const layout = job + load<u32>(entry);
    const blocks = load<u32>(entry, 4);
    memory.copy(layout + load<u32>(entry, 8), job + DIGEST_OFFSET, 32);
    memory.copy(STATE, IV256, 32);
    for (let block: u32 = 0; block < blocks; block++) compress256(layout + block * 64);
    for (let i: u32 = 0; i < 8; i++) store<u32>(job + DIGEST_OFFSET + i * 4, bswap<u32>(load<u32>(STATE + i * 4)));
  }
}

export function sha512Rounds(rounds: u32): void {
  const job = __heap_base;
  for (let round: u32 = 0; round < rounds; round++) {
    const entry = job + (round % LAYOUTS) * 12;
    const layout = job + load<u32>(entry);
    const blocks = load<u32>(entry, 4);
    memory.copy(layout + load<u32>(entry, 8), job + DIGEST_OFFSET, 64);
    memory.copy(STATE, IV512, 64);
    for (let block: u32 = 0; block < blocks; block++) compress512(layout + block * 128);
    for (let i: u32 = 0; i < 8; i++) store<u64>(job + DIGEST_OFFSET + i * 8, bswap<u64>(load<u64>(STATE + i * 8)));
  }
}

@noinline
function compress256(block: usize): void {
  for (let i: u32 = 0; i < 16; i++) store<u32>(W + i * 4, bswap<u32>(load<u32>(block + i * 4)));
  for (let i: u32 = 16; i < 64; i++) {
    const w15 = load<u32>(W + (i - 15) * 4);
    const w2 = load<u32>(W + (i - 2) * 4);
    const s0 = rotr<u32>(w15, 7) ^ rotr<u32>(w15, 18) ^ (w15 >>> 3);
    const s1 = rotr<u32>(w2, 17) ^ rotr<u32>(w2, 19) ^ (w2 >>> 10);
    store<u32>(W + i * 4, load<u32>(W + (i - 16) * 4) + s0 + load<u32>(W + (i - 7) * 4) + s1);
  }
  let a = load<u32>(STATE, 0);
  let b = load<u32>(STATE, 4);
  let c = load<u32>(STATE, 8);
  let d = load<u32>(STATE, 12);
  let e = load<u32>(STATE, 16);
  let f = load<u32>(STATE, 20);
  let g = load<u32>(STATE, 24);
  let h = load<u32>(STATE, 28);
  for (let i: u32 = 0; i < 64; i++) {
    const t1 = h + bigSigma1_32(e) + choose<u32>(e, f, g) + load<u32>(K256 + i * 4) + load<u32>(W + i * 4);
    const t2 = bigSigma0_32(a) + majority<u32>(a, b, c);
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  store<u32>(STATE, load<u32>(STATE, 0) + a, 0);
  store<u32>(STATE, load<u32>(STATE, 4) + b, 4);
  store<u32>(STATE, load<u32>(STATE, 8) + c, 8);
  store<u32>(STATE, load<u32>(STATE, 12) + d, 12);
  store<u32>(STATE, load<u32>(STATE, 16) + e, 16);
  store<u32>(STATE, load<u32>(STATE, 20) + f, 20);
  store<u32>(STATE, load<u32>(STATE, 24) + g, 24);
  store<u32>(STATE, load<u32>(STATE, 28) + h, 28);
}

@noinline
function compress512(block: usize): void {
  for (let i: u32 = 0; i < 16; i++) store<u64>(W + i * 8, bswap<u64>(load<u64>(block + i * 8)));
  for (let i: u32 = 16; i < 80; i++) {
    const w15 = load<u64>(W + (i - 15) * 8);
    const w2 = load<u64>(W + (i - 2) * 8);
    const s0 = rotr<u64>(w15, 1) ^ rotr<u64>(w15, 8) ^ (w15 >>> 7);
    const s1 = rotr<u64>(w2, 19) ^ rotr<u64>(w2, 61) ^ (w2 >>> 6);
    store<u64>(W + i * 8, load<u64>(W + (i - 16) * 8) + s0 + load<u64>(W + (i - 7) * 8) + s1);
  }
  let a = load<u64>(STATE, 0);
  let b = load<u64>(STATE, 8);
  let c = load<u64>(STATE, 16);
  let d = load<u64>(STATE, 24);
  let e = load<u64>(STATE, 32);
  let f = load<u64>(STATE, 40);
  let g = load<u64>(STATE, 48);
  let h = load<u64>(STATE, 56);
  for (let i: u32 = 0; i < 80; i++) {
    const t1 = h + bigSigma1_64(e) + choose<u64>(e, f, g) + load<u64>(K512 + i * 8) + load<u64>(W + i * 8);
    const t2 = bigSigma0_64(a) + majority<u64>(a, b, c);
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  store<u64>(STATE, load<u64>(STATE, 0) + a, 0);
  store<u64>(STATE, load<u64>(STATE, 8) + b, 8);
  store<u64>(STATE, load<u64>(STATE, 16) + c, 16);
  store<u64>(STATE, load<u64>(STATE, 24) + d, 24);
  store<u64>(STATE, load<u64>(STATE, 32) + e, 32);
  store<u64>(STATE, load<u64>(STATE, 40) + f, 40);
  store<u64>(STATE, load<u64>(STATE, 48) + g, 48);
  store<u64>(STATE, load<u64>(STATE, 56) + h, 56);
}

@inline
function choose<T>(e: T, f: T, g: T): T {
  return g ^ (e & (f ^ g));
}

@inline
function majority<T>(a: T, b: T, c: T): T {
  return (a & b) | (c & (a | b));
}

@inline
function bigSigma0_32(a: u32): u32 {
  return rotr<u32>(a, 2) ^ rotr<u32>(a, 13) ^ rotr<u32>(a, 22);
}

@inline
function bigSigma1_32(e: u32): u32 {
  return rotr<u32>(e, 6) ^ rotr<u32>(e, 11) ^ rotr<u32>(e, 25);
}

@inline
function bigSigma0_64(a: u64): u64 {
  return rotr<u64>(a, 28) ^ rotr<u64>(a, 34) ^ rotr<u64>(a, 39);
}

@inline
function bigSigma1_64(e: u64): u64 {
  return rotr<u64>(e, 14) ^ rotr<u64>(e, 18) ^ rotr<u64>(e, 41);
}
