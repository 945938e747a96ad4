import { crashHook } from './sealer-factory';

describe('crashHook', () => {
  it('is off unless a step is named', () => {
    expect(crashHook({ ARCHIVE_CRASH_AFTER: '', ARCHIVE_CRASH_SIGNAL: 'SIGKILL' })).toBeUndefined();
  });

  it('signals the process at the step named, the first time only (a stopped seal, once continued, lets later seals run through)', async () => {
    const kill = jest.fn();
    const hook = crashHook({ ARCHIVE_CRASH_AFTER: 'published', ARCHIVE_CRASH_SIGNAL: 'SIGSTOP' }, kill)!;
    for (const step of ['archived', 'published', 'removing', 'archived', 'published'] as const) await hook(step);
    expect(kill.mock.calls).toEqual([[process.pid, 'SIGSTOP']]);
  });

  it('holds at ARCHIVE_HOLD_AFTER first, then signals at ARCHIVE_CRASH_AFTER', async () => {
    const kill = jest.fn();
    const hook = crashHook({ ARCHIVE_HOLD_AFTER: 'archived', ARCHIVE_CRASH_AFTER: 'published', ARCHIVE_CRASH_SIGNAL: 'SIGKILL' }, kill)!;
    for (const step of ['sealing', 'archived', 'published', 'archived', 'published'] as const) await hook(step);
    expect(kill.mock.calls).toEqual([
      [process.pid, 'SIGSTOP'],
      [process.pid, 'SIGKILL'],
    ]);
  });
});
