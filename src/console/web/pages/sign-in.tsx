import { useState } from 'preact/hooks';
import { call, explain, Session } from '../api';

export function SignInPage(props: { note?: string; onSignedIn: (s: Session) => void }) {
  const [admin, setAdmin] = useState(false);
  const [secret, setSecret] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      const s = await call<Session>('/console/session', {
        method: 'POST',
        body: admin ? { adminToken: secret.trim() } : { key: secret.trim() },
        quiet401: true,
      });
      setSecret('');
      props.onSignedIn(s);
    } catch (err) {
      setError(explain(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="signin">
      <h1>Tapedeck</h1>
      {props.note && (
        <p class="note" role="status">
          {props.note}
        </p>
      )}
      <form onSubmit={(e) => void submit(e)} aria-describedby="signin-help">
        <fieldset class="tabs">
          <legend class="sr-only">Sign in as</legend>
          <label>
            <input type="radio" name="as" checked={!admin} onChange={() => setAdmin(false)} /> Tenant
          </label>
          <label>
            <input type="radio" name="as" checked={admin} onChange={() => setAdmin(true)} /> Administrator
          </label>
        </fieldset>
        <label for="secret">{admin ? 'Admin token' : 'Private key'}</label>
        <input
          id="secret"
          type="password"
          autoComplete="off"
          required
          value={secret}
          onInput={(e) => setSecret((e.target as HTMLInputElement).value)}
          placeholder={admin ? 'TAPEDECK_ADMIN_TOKEN' : 'secret_key_…'}
        />
        <p id="signin-help" class="muted small">
          {admin
            ? 'The admin token manages tenants, keys and signing keys.'
            : 'Your tenant’s private key. It is exchanged for a session; the browser never stores it.'}
        </p>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
