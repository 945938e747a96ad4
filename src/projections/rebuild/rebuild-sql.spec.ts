import { createLike, dropTable, swapTables } from './rebuild-sql';

describe('rebuild statements', () => {
  it('copies the live table and swaps every table in one RENAME', () => {
    expect(createLike('recording_batches_rebuild_17', 'recording_batches').text).toBe('CREATE TABLE `recording_batches_rebuild_17` AS `recording_batches`');
    expect(swapTables(['a', 'b'], '17').text).toBe('RENAME TABLE `a` TO `a_old_17`, `a_rebuild_17` TO `a`, `b` TO `b_old_17`, `b_rebuild_17` TO `b`');
    expect(dropTable('a_old_17').text).toBe('DROP TABLE IF EXISTS `a_old_17`');
    expect(() => swapTables(['a;DROP'], '1')).toThrow();
  });
});
