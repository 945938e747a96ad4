// A recording's poster thumbnail, or a placeholder while the service renders it in the background
// (the thumbnail route answers 404 until then): tried again a few times, never blocking the list.
import { useEffect, useState } from 'preact/hooks';

const RETRIES = 6;
const RETRY_MS = 5000;

export function Thumbnail(props: { src: string; viewport: { width: number; height: number } | null; eager?: boolean }) {
  const [attempt, setAttempt] = useState(0);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (!failed || attempt >= RETRIES) return;
    const t = setTimeout(() => {
      setFailed(false);
      setAttempt(attempt + 1);
    }, RETRY_MS);
    return () => clearTimeout(t);
  }, [failed, attempt]);
  if (failed) {
    return (
      <span class="thumb placeholder" aria-hidden="true">
        <span>{attempt >= RETRIES ? 'No preview' : 'Preview coming…'}</span>
      </span>
    );
  }
  return (
    <img
      class="thumb"
      src={attempt ? `${props.src}?attempt=${attempt}` : props.src}
      alt=""
      loading={props.eager ? 'eager' : 'lazy'}
      decoding="async"
      onError={() => setFailed(true)}
    />
  );
}
