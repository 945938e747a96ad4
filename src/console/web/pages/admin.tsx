// The admin view (admin session): tenants, their API keys and signing keys over the admin API.
// Secrets the API generates are shown once, as the API answers them.
import { useEffect, useState } from 'preact/hooks';
import { call, enc, explain } from '../api';
import { when } from '../format';

interface Tenant {
  id: string;
  name: string;
  createdAt: number;
  status?: string;
}
interface Key {
  kind: 'public' | 'secret';
  handle: string;
  createdAt: number;
}
interface SigningKey {
  keyId: string;
  createdAt: number;
}

export function AdminPage() {
  const [tenants, setTenants] = useState<Tenant[] | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [newId, setNewId] = useState('');
  const [msg, setMsg] = useState('');
  const load = () =>
    call<{ tenants: Tenant[] }>('/admin/tenants').then(
      (r) => setTenants(r.tenants),
      (e) => setMsg(explain(e)),
    );
  useEffect(() => void load(), []);

  const create = async (e: Event) => {
    e.preventDefault();
    setMsg('');
    try {
      await call('/admin/tenants', { method: 'POST', body: { id: newId.trim() } });
      setSelected(newId.trim());
      setNewId('');
      await load();
    } catch (err) {
      setMsg(explain(err));
    }
  };

  return (
    <section>
      <h1>Tenants</h1>
      <form class="row" onSubmit={(e) => void create(e)}>
        <label>
          New tenant id <input required pattern="[A-Za-z0-9_\-]{1,64}" value={newId} onInput={(e) => setNewId((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">Create tenant</button>
      </form>
      {msg && (
        <p class="error" role="alert">
          {msg}
        </p>
      )}
      {tenants && (
        <table class="grid">
          <caption class="sr-only">Tenants</caption>
          <thead>
            <tr>
              <th scope="col">Tenant</th>
              <th scope="col">Created</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {tenants.map((t) => (
              <tr aria-selected={selected === t.id}>
                <td>
                  <button class="link" onClick={() => setSelected(t.id)} aria-pressed={selected === t.id}>
                    {t.id}
                  </button>
                  {t.name !== t.id && <span class="muted"> {t.name}</span>}
                </td>
                <td>{when(t.createdAt)}</td>
                <td>{t.status ?? 'active'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {selected && <TenantKeys tenantId={selected} key={selected} />}
    </section>
  );
}

function TenantKeys({ tenantId }: { tenantId: string }) {
  const base = `/admin/tenants/${enc(tenantId)}`;
  const [keys, setKeys] = useState<Key[]>([]);
  const [signing, setSigning] = useState<SigningKey[]>([]);
  const [shown, setShown] = useState<string>('');
  const [msg, setMsg] = useState('');
  const [keyId, setKeyId] = useState('');
  const load = async () => {
    try {
      setKeys((await call<{ keys: Key[] }>(`${base}/keys`)).keys);
      setSigning((await call<{ signingKeys: SigningKey[] }>(`${base}/signing-keys`)).signingKeys);
    } catch (e) {
      setMsg(explain(e));
    }
  };
  useEffect(() => void load(), [tenantId]);
  const act = async (f: () => Promise<void>) => {
    setMsg('');
    try {
      await f();
      await load();
    } catch (e) {
      setMsg(explain(e));
    }
  };
  const createKey = (kind: 'public' | 'secret') =>
    act(async () => {
      const r = await call<{ key: string }>(`${base}/keys`, { method: 'POST', body: { kind } });
      setShown(`New ${kind} key (shown once, copy it now): ${r.key}`);
    });
  const createSigning = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      const id = keyId.trim();
      const r = await call<{ secret?: string }>(`${base}/signing-keys`, { method: 'POST', body: { keyId: id } });
      setShown(r.secret ? `New signing key ${id} (secret shown once): ${r.secret}` : `Signing key ${id} added`);
      setKeyId('');
    });
  };

  return (
    <div class="tenant">
      <h2>Tenant {tenantId}</h2>
      {shown && (
        <p class="secret" role="status">
          <output>{shown}</output>
        </p>
      )}
      {msg && (
        <p class="error" role="alert">
          {msg}
        </p>
      )}
      <h3>API keys</h3>
      <div class="row">
        <button onClick={() => void createKey('secret')}>Create private key</button>
        <button onClick={() => void createKey('public')}>Create public key</button>
      </div>
      <ul class="keys">
        {keys.map((k) => (
          <li>
            <span>
              {k.kind === 'secret' ? 'Private' : 'Public'} key <code>{k.handle}</code> <span class="muted">created {when(k.createdAt)}</span>
            </span>
            <button
              class="destructive"
              aria-label={`Revoke ${k.kind} key ${k.handle}`}
              onClick={() => void act(() => call(`${base}/keys/${k.handle}`, { method: 'DELETE' }))}
            >
              Revoke
            </button>
          </li>
        ))}
        {keys.length === 0 && <li class="muted">No keys.</li>}
      </ul>
      <h3>Signing keys (presigned links)</h3>
      <form class="row" onSubmit={createSigning}>
        <label>
          New signing key id <input required value={keyId} onInput={(e) => setKeyId((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">Add signing key</button>
      </form>
      <p class="muted small">To rotate: add a new key (links are signed with the newest), then revoke the old one (links it signed stop working).</p>
      <ul class="keys">
        {signing.map((k) => (
          <li>
            <span>
              <code>{k.keyId}</code> <span class="muted">created {when(k.createdAt)}</span>
            </span>
            <button
              class="destructive"
              aria-label={`Revoke signing key ${k.keyId}`}
              onClick={() => void act(() => call(`${base}/signing-keys/${enc(k.keyId)}`, { method: 'DELETE' }))}
            >
              Revoke
            </button>
          </li>
        ))}
        {signing.length === 0 && <li class="muted">No signing keys: presigned links and the player need one.</li>}
      </ul>
    </div>
  );
}
