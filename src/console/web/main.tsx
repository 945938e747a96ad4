// The Tapedeck console: sign-in, recordings, a recording, replays, statistics, admin (docs/console.md).
import './console.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call, explain, prefetch, Session, useSession } from './api';
import { AdminPage } from './pages/admin';
import { RecordingPage } from './pages/recording';
import { listingPath, RecordingsPage } from './pages/recordings';
import { ReplaysPage } from './pages/replays';
import { SignInPage } from './pages/sign-in';
import { StatisticsPage } from './pages/statistics';
import { linkClick, navigate, useLocation } from './router';

type State = { phase: 'loading' } | { phase: 'out'; note?: string } | { phase: 'in'; session: Session } | { phase: 'down'; message: string };

function App() {
  const loc = useLocation();
  const [state, setState] = useState<State>({ phase: 'loading' });
  const ended = () => setState({ phase: 'out', note: 'Your session has expired or ended. Sign in again to continue.' });

  const check = () =>
    call<Session>('/console/session', { quiet401: true }).then(
      (session) => setState({ phase: 'in', session }),
      (e: { status?: number }) => setState(e.status === 401 ? { phase: 'out' } : { phase: 'down', message: explain(e) }),
    );
  useEffect(() => void check(), []);
  useSession(state.phase === 'in' ? state.session : null, ended);

  useEffect(() => {
    if (state.phase !== 'in') return;
    const admin = state.session.kind === 'admin';
    if (admin ? loc.path !== '/console/admin' : loc.path === '/console' || loc.path === '/console/sign-in') {
      navigate(admin ? '/console/admin' : '/console/recordings', true);
    }
  }, [state, loc.path]);

  if (state.phase === 'loading') return <p class="center muted">Loading…</p>;
  if (state.phase === 'down') {
    return (
      <main class="center" role="alert">
        <h1>Tapedeck is not reachable</h1>
        <p>{state.message}</p>
        <button onClick={() => void check()}>Try again</button>
      </main>
    );
  }
  if (state.phase === 'out') return <SignInPage note={state.note} onSignedIn={(session) => setState({ phase: 'in', session })} />;

  const s = state.session;
  const signOut = async () => {
    await call('/console/session', { method: 'DELETE' }).catch(() => undefined);
    setState({ phase: 'out', note: 'You are signed out.' });
    navigate('/console/sign-in', true);
  };
  const page = route(loc.path, s);
  const nav =
    s.kind === 'admin'
      ? [['/console/admin', 'Tenants']]
      : [
          ['/console/recordings', 'Recordings'],
          ['/console/replays', 'Replays'],
          ['/console/statistics', 'Statistics'],
        ];
  return (
    <div class="shell" onClick={linkClick}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={nav[0][0]}>
          Tapedeck
        </a>
        <nav aria-label="Main">
          {nav.map(([href, label]) => (
            <a href={href} aria-current={loc.path.startsWith(href) ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <span class="who" title="Signed in as">
          {s.kind === 'admin' ? 'Administrator' : s.tenantId}
        </span>
        <button class="quiet" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {page}
      </main>
    </div>
  );
}

function route(path: string, s: Session) {
  if (s.kind === 'admin') return path === '/console/admin' ? <AdminPage /> : <NotFound />;
  if (path === '/console/recordings') return <RecordingsPage />;
  const rec = /^\/console\/recordings\/([0-9a-fA-F-]{36})$/.exec(path);
  if (rec) return <RecordingPage id={rec[1]} />;
  if (path === '/console/replays') return <ReplaysPage />;
  if (path === '/console/statistics') return <StatisticsPage />;
  if (path === '/console/admin') return <p>The admin view needs the admin token: sign out, then sign in as administrator.</p>;
  return <NotFound />;
}

const NotFound = () => (
  <section>
    <h1>Page not found</h1>
    <p>
      <a href="/console/recordings">Go to the recordings</a>
    </p>
  </section>
);

// The recordings page is where most visits start: its listing goes out with the session check.
if (location.pathname === '/console/recordings') prefetch(listingPath(new URLSearchParams(location.search)));
render(<App />, document.getElementById('app') as HTMLElement);
