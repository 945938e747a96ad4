import { createLike, dropTable, swapTable } from './rebuild-sql';

describe('rebuild statements', () => {
  it('copies the live table and swaps one table per RENAME', () => {
    expect(createLike('recording_batches_rebuild_17', 'recording_batches').text).toBe('CREATE TABLE `recording_batches_rebuild_17` AS `recording_batches`');
    expect(swapTable('a', '17').text).toBe('RENAME TABLE `a` TO `a_old_17`, `a_rebuild_17` TO `a`');
    expect(dropTable('a_old_17').text).toBe('DROP TABLE IF EXISTS `a_old_17`');
    expect(() => swapTable('a;DROP', '1')).toThrow();
  });
});
