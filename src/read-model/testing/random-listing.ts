// Random data for the listing's specs, checked against the brute force of listing-model.fake.ts:
// recordings over 48 hours with one to three batches (some a day apart, some redelivered), `plan`
// and `country` values (some overwritten), a few late batches and two deleted recordings.
import { HOUR, id, Model, NOW } from './listing-model.fake';

/** A deterministic random number source: rand(n) is in [0, n), the same sequence for a seed. */
export function seeded(seed: number): (n: number) => number {
  return (n) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
}

/** A random listing of 20 to 219 recordings, drawn from `rand`. */
export function randomListing(rand: (n: number) => number): Required<Pick<Model, 'batches' | 'metadata' | 'deleted'>> {
  const batches: [string, number][] = [];
  const metadata: [string, string, string, number][] = [];
  const n = 20 + rand(200);
  let seq = 1;
  for (let i = 0; i < n; i++) {
    const start = NOW - rand(48) * HOUR - rand(1000) * 1000;
    for (let b = 0; b < 1 + rand(3); b++) batches.push([id(i), start + b * (rand(10) === 0 ? 30 * HOUR : 5000)]);
    if (rand(20) === 0) batches.push([id(i), start]); // a redelivered batch
    metadata.push([id(i), 'plan', ['free', 'pro'][rand(2)], seq++], [id(i), 'country', `c${rand(4)}`, seq++]);
    if (rand(5) === 0) metadata.push([id(i), 'plan', ['free', 'pro'][rand(2)], seq++]);
  }
  for (let i = 0; i < 5; i++) batches.push([id(rand(n)), NOW - rand(100) * HOUR]); // late batches, older or newer
  return { batches, metadata, deleted: [id(rand(n)), id(rand(n))] };
}
