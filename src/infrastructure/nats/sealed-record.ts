// The Td-Sealed header of a sealed batch record: where a batch's payload went when its recording was
// archived, and the stream sequence, time and chunk header of the message it replaced, so that
// projections (rows versioned by sequence) and reads see the same batch as before sealing.
export interface SealedRef {
  /** Archive object name. */
  a: string;
  /** Stream sequence and time (epoch ms) of the replaced message. */
  s: number;
  t: number;
  /** The replaced message's Td-Chunk ("i/n"), when it was a chunk. */
  c?: string;
  /** True when the archive does not hold the batch: the replaced message was part of a batch never stored whole. */
  x?: boolean;
}

export function parseSealedRef(header: string | undefined): SealedRef | undefined {
  if (!header) return undefined;
  try {
    const r = JSON.parse(header) as Partial<SealedRef>;
    if (typeof r.a !== 'string' || typeof r.s !== 'number' || typeof r.t !== 'number') return undefined;
    return { a: r.a, s: r.s, t: r.t, c: typeof r.c === 'string' ? r.c : undefined, x: r.x === true ? true : undefined };
  } catch {
    return undefined;
  }
}

export const formatSealedRef = (r: SealedRef): string => JSON.stringify(r);
