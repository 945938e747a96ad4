import { describeLeftover, groupLeftovers } from './leftovers';

describe('rebuild leftovers', () => {
  it('groups the fresh and retired tables of each stopped rebuild, oldest first', () => {
    const names = ['b_old_20', 'a', 'b', 'a_rebuild_10', 'b_rebuild_10', 'a_old_20', 'other_rebuild_10', 'a_rebuild_x', 'schema_migrations'];
    expect(groupLeftovers(names, ['a', 'b'])).toEqual([
      { kind: 'fresh', suffix: '10', startedAt: '1970-01-01T00:00:00.010Z', tables: ['a_rebuild_10', 'b_rebuild_10'] },
      { kind: 'retired', suffix: '20', startedAt: '1970-01-01T00:00:00.020Z', tables: ['a_old_20', 'b_old_20'] },
    ]);
    expect(groupLeftovers(['a', 'b'], ['a', 'b'])).toEqual([]);
  });

  it('tells what each kind means', () => {
    const [fresh, retired] = groupLeftovers(['a_rebuild_10', 'a_old_20'], ['a']);
    expect(describeLeftover(fresh)).toMatch(/^1 fresh tables \*_rebuild_10 of a rebuild started 1970-01-01T00:00:00.010Z: it stopped before its swap/);
    expect(describeLeftover(retired)).toMatch(/stopped after its swap.*may be missing: run projections rebuild again/);
  });
});
