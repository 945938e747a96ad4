import { BatchAssembler, orderBatches, ReadPlanMismatch } from './event-order';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('BatchAssembler', () => {
  it('assembles the planned batches from the sequences of the first pass', () => {
    const plan = orderBatches([
      { seq: 10, batch: 'a' },
      { seq: 11, batch: 'b', chunk: '0/2' },
      { seq: 12, batch: 'b', chunk: '1/2' },
    ]);
    const asm = new BatchAssembler(plan);
    expect(asm.outstanding).toBe(3);
    expect(new TextDecoder().decode(asm.add(10, 'a', bytes('[1]'))!.payload)).toBe('[1]');
    expect(asm.add(11, 'b', bytes('[2,'))).toBeNull();
    expect(new TextDecoder().decode(asm.add(12, 'b', bytes('3]'))!.payload)).toBe('[2,3]');
    expect(asm.outstanding).toBe(0);
  });

  it('refuses a second pass whose sequences hold other batches (a replica with a shifted history)', () => {
    const asm = new BatchAssembler(
      orderBatches([
        { seq: 43, batch: 'x' },
        { seq: 44, batch: 'y' },
      ]),
    );
    // The replica lost seq 43 and holds "y" there: reading on would silently drop "x".
    expect(() => asm.add(43, 'y', bytes('[]'))).toThrow(ReadPlanMismatch);
  });

  it('counts planned messages not delivered yet', () => {
    const asm = new BatchAssembler(
      orderBatches([
        { seq: 1, batch: 'a' },
        { seq: 2, batch: 'b' },
      ]),
    );
    asm.add(1, 'a', bytes('[]'));
    expect(asm.outstanding).toBe(1);
  });
});

describe('orderBatches: message sizes for the payload pass', () => {
  const summary = (bytes: number) => JSON.stringify({ minTs: 1, bytes });

  it('gives the largest message of any batch, chunks counted by their share, incomplete and repeated batches included', () => {
    const plan = orderBatches([
      { seq: 1, batch: 'a', summary: summary(10_000) },
      { seq: 2, batch: 'b', chunk: '0/2', summary: summary(3_000_000) },
      { seq: 3, batch: 'b', chunk: '1/2' },
      { seq: 4, batch: 'c', chunk: '0/3', summary: summary(6_000_000) },
      { seq: 5, batch: 'a', summary: summary(10_000) },
    ]);
    expect(plan.batches.map((b) => b.batch)).toEqual(['a', 'b']);
    expect(plan.maxMessageBytes).toBe(2_000_000);
  });

  it('is unknown when a message belongs to a batch without a summary', () => {
    expect(
      orderBatches([
        { seq: 1, batch: 'a', summary: summary(10) },
        { seq: 2, batch: 'b' },
      ]).maxMessageBytes,
    ).toBeUndefined();
    expect(orderBatches([{ seq: 1, batch: 'a', summary: '{not json' }]).maxMessageBytes).toBeUndefined();
  });
});
