/**
 * Renews a held lease every third of its time-to-live until stopped. A lease of the old provider's timeout plus a
 * margin was shorter than an adoption under load (the new hash waits for a hashing slot), and another core then
 * took the lease and asked the old provider a second time; renewed, it lasts as long as its holder works.
 */
export function keepLease(renew: () => Promise<unknown>, ttlMs: number): () => void {
  const timer = setInterval(() => void renew().catch(() => undefined), Math.max(50, Math.floor(ttlMs / 3)));
  timer.unref();
  return () => clearInterval(timer);
}
