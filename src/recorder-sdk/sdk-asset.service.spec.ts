import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SdkAssetService } from './sdk-asset.service';

describe('SdkAssetService', () => {
  it('reads the bundle once, with a sha256 ETag and a JavaScript content type', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdk-'));
    writeFileSync(join(dir, 'recorder.js'), 'var Tapedeck=1;');
    const svc = new SdkAssetService(dir);
    const a = svc.get('recorder.js')!;
    expect(a.contentType).toBe('application/javascript; charset=utf-8');
    expect(a.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    writeFileSync(join(dir, 'recorder.js'), 'changed');
    expect(svc.get('recorder.js')).toBe(a);
  });

  it('answers null while the file is missing and finds it once built', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdk-'));
    const svc = new SdkAssetService(dir);
    expect(svc.get('recorder.js.map')).toBeNull();
    writeFileSync(join(dir, 'recorder.js.map'), '{}');
    expect(svc.get('recorder.js.map')?.contentType).toBe('application/json; charset=utf-8');
  });
});
