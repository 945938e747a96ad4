// The tab check over Node's BroadcastChannel: a page of another tab (its own sessionStorage) claims a
// recording id; a page of the same tab (shared sessionStorage) does not.
import { MemoryStore } from './browser/storage';
import { TabCheck } from './browser/tab-check';

const asked = (check: TabCheck, id: string, timeoutMs = 200) => new Promise<boolean>((resolve) => expect(check.ask(id, timeoutMs, resolve)).not.toBeNull());

describe('TabCheck', () => {
  const opened: TabCheck[] = [];
  const page = (store: MemoryStore, ids: string[]) => {
    const check = new TabCheck(store, () => ids);
    opened.push(check);
    expect(check.open()).toBe(true);
    return check;
  };
  afterEach(() => opened.splice(0).forEach((c) => c.close()));

  it('is answered by a page of another tab that holds the id', async () => {
    page(new MemoryStore(), ['rec-1']);
    await expect(asked(page(new MemoryStore(), []), 'rec-1')).resolves.toBe(true);
  });

  it('is not answered by a page of the same tab, nor for another id, nor by a closed page', async () => {
    const tab = new MemoryStore();
    page(tab, ['rec-1']);
    page(new MemoryStore(), ['rec-2']);
    page(new MemoryStore(), ['rec-1']).close();
    await expect(asked(page(tab, []), 'rec-1')).resolves.toBe(false);
  });

  it('decides at once when asked to, and leaves no probe behind', async () => {
    const store = new MemoryStore();
    const check = page(store, []);
    let result: boolean | undefined;
    const now = check.ask('rec-1', 10_000, (taken) => (result = taken));
    expect(result).toBeUndefined(); // never synchronously
    now?.();
    expect(result).toBe(false);
    expect(store.getItem('tapedeck-tab-probe')).toBeNull();
  });
});
