/**
 * Offline validation of the deployment artefacts under deploy/ (no Docker engine, no cluster):
 *
 * - every YAML file parses with YAML 1.1 semantics (what Compose and Kubernetes use: `yes`, `on`, `no`
 *   are booleans there) and merge keys, with no duplicate keys;
 * - deploy/docker-compose.yml conforms to the Compose Specification JSON schema (bundled with dclint)
 *   and has the intended topology (3-node NATS JetStream cluster, ClickHouse, 2 API replicas, a
 *   projector, a round-robin WebSocket-capable proxy); `docker compose config -q` also runs when the
 *   Compose plugin is installed;
 * - every Kubernetes object validates against the Kubernetes OpenAPI schemas (bundled with
 *   kubernetes-models) and is wired together (probes, resources, HPA target, Service, Ingress, PDBs);
 * - every environment variable the artefacts set is a documented one, and the values they set are
 *   accepted by the service's own configuration schema (src/config/config.ts);
 * - the Dockerfile builds in stages and installs Chromium and the fonts rendering needs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DCLinter } from 'dclint';
import { parseAllDocuments } from 'yaml';
import { configSchema, loadConfig } from '../../src/config/config';
import { documentedEnv } from './documented-config';

const ROOT = resolve(__dirname, '..', '..');
const DEPLOY = join(ROOT, 'deploy');
const K8S = join(DEPLOY, 'k8s');
const COMPOSE_FILE = join(DEPLOY, 'docker-compose.yml');
const DOCKERFILE = join(DEPLOY, 'Dockerfile');

/** The environment variables operators may set (docs/operations.md). Nothing else belongs in deploy/. */
const DOCUMENTED_ENV = documentedEnv();
const DOCUMENTED = new Set<string>(DOCUMENTED_ENV);

/** What the local stack installs for rendering (scripts/ensure-deps.sh): the image must have the same. */
const RENDER_PACKAGES = (/^APT_PACKAGES=\(([^)]*)\)/m.exec(readFileSync(join(ROOT, 'scripts', 'ensure-deps.sh'), 'utf8'))?.[1] ?? '')
  .split(/\s+/)
  .filter((p) => p === 'chromium' || p.startsWith('fonts-'));
const MIN_BODY_BYTES = 64 * 1024 * 1024;
const MIN_WS_TIMEOUT_SECONDS = 3600;

// ------------------------------------------------------------------------------------------------
// helpers

type Obj = Record<string, any>;

/** Parses every document of a YAML file as Compose and Kubernetes would (YAML 1.1, merge keys). */
function loadYaml(file: string): Obj[] {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'), { version: '1.1', merge: true, uniqueKeys: true });
  if (!Array.isArray(docs)) return [];
  return docs
    .map((doc, i) => {
      const problems = [...doc.errors, ...doc.warnings].map((e) => e.message);
      if (problems.length > 0) throw new Error(`${file} (document ${i + 1}):\n${problems.join('\n')}`);
      return doc.toJS({ maxAliasCount: 1000 }) as Obj;
    })
    .filter((d) => d !== null && d !== undefined);
}

/** Compose-style interpolation with an empty environment: `${X:-d}`, `${X-d}` give d, `${X}` gives ''. */
function interpolate(value: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}/g, (_m, _name: string, def?: string) => def ?? '').replace(/\$\$/g, '$');
}

function envMap(environment: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(environment)) {
    for (const entry of environment as string[]) {
      const eq = entry.indexOf('=');
      out[eq < 0 ? entry : entry.slice(0, eq)] = eq < 0 ? '' : interpolate(entry.slice(eq + 1));
    }
  } else if (environment && typeof environment === 'object') {
    for (const [k, v] of Object.entries(environment as Obj)) out[k] = v === null ? '' : interpolate(String(v));
  }
  return out;
}

/** Parses a Kubernetes quantity (cpu: "500m", "2"; memory: "768Mi", "2Gi", "1G", bytes). */
function quantity(q: string | number): number {
  const m = /^([0-9.]+)(m|k|Ki|M|Mi|G|Gi|T|Ti)?$/.exec(String(q));
  if (!m) throw new Error(`not a quantity: ${q}`);
  const factor: Record<string, number> = {
    '': 1,
    m: 1e-3,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
  };
  return Number(m[1]) * factor[m[2] ?? ''];
}

/** nginx sizes: "64m", "1g", "512k", bytes. */
function nginxSize(s: string): number {
  const m = /^(\d+)([kmg]?)$/i.exec(s.trim());
  if (!m) throw new Error(`not an nginx size: ${s}`);
  return Number(m[1]) * ({ '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 } as Record<string, number>)[m[2].toLowerCase()];
}

/** nginx times: "3600s", "1h", "300", "5m". */
function nginxSeconds(s: string): number {
  const m = /^(\d+)(ms|s|m|h|d)?$/.exec(s.trim());
  if (!m) throw new Error(`not an nginx time: ${s}`);
  return Number(m[1]) * ({ '': 1, ms: 1e-3, s: 1, m: 60, h: 3600, d: 86400 } as Record<string, number>)[m[2] ?? ''];
}

function labelsMatch(selector: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

function validateConfig(env: Record<string, string>): void {
  // loadConfig throws a ConfigError naming every bad variable.
  loadConfig(env);
}

// ------------------------------------------------------------------------------------------------
// documented variables

describe('documented environment variables', () => {
  it('are all read by the service configuration (src/config/config.ts)', () => {
    const known = new Set(Object.keys(configSchema.shape));
    expect(DOCUMENTED_ENV.filter((name) => !known.has(name))).toEqual([]);
  });
});

// ------------------------------------------------------------------------------------------------
// Dockerfile

type Instruction = { op: string; args: string };
type Stage = { from: string; name?: string; instructions: Instruction[] };

function parseDockerfile(text: string): { args: Record<string, string>; stages: Stage[]; comments: string } {
  const comments = text
    .split('\n')
    .filter((l) => l.trim().startsWith('#'))
    .join('\n');
  const logical: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') && current === '') continue;
    if (line.startsWith('#')) continue; // comment inside a continued instruction
    if (line.endsWith('\\')) {
      current += line.slice(0, -1) + ' ';
      continue;
    }
    current += line;
    if (current.trim()) logical.push(current.trim());
    current = '';
  }
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of logical) {
    const m = /^(\w+)\s+([\s\S]*)$/.exec(line);
    if (!m) continue;
    const op = m[1].toUpperCase();
    const rest = m[2].trim();
    if (op === 'ARG' && stages.length === 0) {
      const [k, v] = rest.split('=');
      args[k] = v ?? '';
    } else if (op === 'FROM') {
      const fm = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      if (!fm) throw new Error(`bad FROM: ${line}`);
      const from = fm[1].replace(/\$\{?(\w+)\}?/g, (_x, name: string) => args[name] ?? '');
      stages.push({ from, name: fm[2], instructions: [] });
    } else if (stages.length > 0) {
      stages[stages.length - 1].instructions.push({ op, args: rest });
    }
  }
  return { args, stages, comments };
}

/** Packages named by `apt-get install` commands in RUN instructions. */
function aptPackages(stage: Stage): string[] {
  const pkgs: string[] = [];
  for (const ins of stage.instructions.filter((i) => i.op === 'RUN')) {
    for (const cmd of ins.args.split(/&&|;|\|\|/)) {
      const words = cmd.trim().split(/\s+/);
      const at = words.findIndex((w, i) => w === 'install' && /apt(-get)?$/.test(words[i - 1] ?? ''));
      if (at < 0) continue;
      pkgs.push(...words.slice(at + 1).filter((w) => w && !w.startsWith('-')));
    }
  }
  return pkgs;
}

describe('deploy/Dockerfile', () => {
  const { stages, comments } = parseDockerfile(readFileSync(DOCKERFILE, 'utf8'));
  const build = stages[0];
  const runtime = stages[stages.length - 1];
  const runs = (s: Stage) =>
    s.instructions
      .filter((i) => i.op === 'RUN')
      .map((i) => i.args)
      .join('\n');
  const last = (s: Stage, op: string) => [...s.instructions].reverse().find((i) => i.op === op);

  it('is multi-stage on node:20-bookworm-slim', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(build.from).toBe('node:20-bookworm-slim');
    expect(build.name).toBeTruthy();
    expect(runtime.from).toBe('node:20-bookworm-slim');
  });

  it('installs the locked dependencies (npm install --no-save), npm run build and prunes dev dependencies, in that order', () => {
    const text = runs(build);
    const order = ['npm install --no-save', 'npm run build', 'npm prune --omit=dev'].map((c) => text.indexOf(c));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('installs chromium, the fonts, CA certificates and tini in the runtime image', () => {
    expect(RENDER_PACKAGES).toEqual(expect.arrayContaining(['chromium', 'fonts-noto-core', 'fonts-noto-cjk', 'fonts-noto-color-emoji']));
    const pkgs = aptPackages(runtime);
    expect(pkgs).toEqual(expect.arrayContaining([...RENDER_PACKAGES, 'ca-certificates', 'tini']));
    expect(runs(runtime)).toMatch(/rm -rf \/var\/lib\/apt\/lists/);
    expect(comments).toMatch(/start-local\.sh/);
  });

  it('copies the build output and pruned node_modules from the build stage', () => {
    const copies = runtime.instructions.filter((i) => i.op === 'COPY').map((i) => i.args);
    for (const what of ['/app/dist', '/app/node_modules']) {
      expect(copies.some((c) => c.includes(`--from=${build.name}`) && c.includes(what))).toBe(true);
    }
  });

  it('runs as a non-root user, exposes 3000, checks /healthz and starts node dist/main.js under tini', () => {
    const user = last(runtime, 'USER')?.args ?? 'root';
    expect(user.split(':')[0]).not.toMatch(/^(root|0)$/);
    expect(runtime.instructions.some((i) => i.op === 'EXPOSE' && i.args.split(/\s+/).includes('3000'))).toBe(true);
    expect(last(runtime, 'HEALTHCHECK')?.args).toMatch(/\/healthz/);
    expect(JSON.parse(last(runtime, 'CMD')!.args)).toEqual(['node', 'dist/main.js']);
    expect(JSON.parse(last(runtime, 'ENTRYPOINT')!.args)[0]).toMatch(/tini$/);
    expect(last(runtime, 'ENV')?.args ?? '').toMatch(/CHROMIUM_PATH=\/usr\/bin\/chromium/);
  });

  it('keeps the build context small but complete (deploy/Dockerfile.dockerignore)', () => {
    const ignore = readFileSync(join(DEPLOY, 'Dockerfile.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    expect(ignore).toEqual(expect.arrayContaining(['node_modules', 'dist', '.data', '.git']));
    for (const needed of ['src', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json']) {
      expect(ignore).not.toContain(needed);
    }
  });

  // `npm start` runs scripts/start-local.sh, which may delegate the installation to other scripts
  // (its node launcher, scripts/start-local.mjs, runs scripts/ensure-deps.sh): followed through every
  // script of scripts/ the code (not a comment) of one names.
  const startLocal = join(ROOT, 'scripts', 'start-local.sh');
  const localScripts = (): string[] => {
    const found = [startLocal];
    for (let i = 0; i < found.length; i++) {
      const code = readFileSync(found[i], 'utf8').replace(/^\s*(?:#|\/\/).*$/gm, '');
      for (const m of code.matchAll(/(scripts\/[\w.-]+\.(?:sh|mjs))/g)) {
        const file = join(ROOT, m[1]);
        if (existsSync(file) && !found.includes(file)) found.push(file);
      }
    }
    return found;
  };
  (existsSync(startLocal) ? it : it.skip)('installs every rendering package `npm start` installs (skipped until scripts/start-local.sh exists)', () => {
    const local = new Set<string>();
    for (const file of localScripts()) {
      const code = readFileSync(file, 'utf8').replace(/#.*$/gm, '');
      for (const m of code.matchAll(/(?<![\w-])(chromium|fonts-[a-z0-9-]+)(?![\w-])/g)) local.add(m[1]);
    }
    expect(local.has('chromium')).toBe(true);
    expect([...local].filter((p) => !aptPackages(runtime).includes(p))).toEqual([]);
  });
});

// ------------------------------------------------------------------------------------------------
// docker compose

describe('deploy/docker-compose.yml', () => {
  const [compose] = loadYaml(COMPOSE_FILE);
  const services = compose.services as Record<string, Obj>;
  const entries = Object.entries(services);
  const isTapedeck = (s: Obj) => s.build !== undefined || /(^|[/:{-])tapedeck/.test(String(s.image ?? ''));
  const tapedeck = entries.filter(([, s]) => isTapedeck(s));
  const withRole = (role: string) => tapedeck.filter(([, s]) => envMap(s.environment).TAPEDECK_ROLE === role);
  const replicas = (s: Obj) => (s.deploy?.replicas ?? 1) as number;
  const nats = entries.filter(([, s]) => /^nats:2\.10(-|$)/.test(String(s.image)));
  const proxies = entries.filter(([, s]) => /^(nginx|caddy)(:|$)/.test(String(s.image)));

  it('conforms to the Compose Specification schema (dclint)', () => {
    const off = [
      'no-build-and-image',
      'no-unbound-port-interfaces',
      'service-container-name-regex',
      'service-dependencies-alphabetical-order',
      'service-keys-order',
      'service-ports-alphabetical-order',
      'services-alphabetical-order',
      'top-level-properties-order',
    ];
    const on = [
      'no-duplicate-container-names',
      'no-duplicate-exported-ports',
      'no-quotes-in-volumes',
      'no-version-field',
      'require-project-name-field',
      'service-image-require-explicit-tag',
    ];
    // dclint enables every rule it is not told about, so each one is named here.
    const rules: Record<string, 0 | 2 | [2, Record<string, unknown>]> = Object.fromEntries([
      ...off.map((r) => [r, 0] as const),
      ...on.map((r) => [r, 2] as const),
    ]);
    rules['require-quotes-in-ports'] = [2, { quoteType: 'double' }];
    const [result] = new DCLinter({ rules, quiet: true, debug: false, exclude: [] }).lintFiles([COMPOSE_FILE], false);
    expect(result.messages.map((m) => `${m.rule}: ${m.message}`)).toEqual([]);
  });

  const cli = (() => {
    const plugin = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' });
    return plugin.status === 0;
  })();
  (cli ? it : it.skip)('is accepted by `docker compose config -q` (skipped when the docker compose plugin is absent)', () => {
    const r = spawnSync('docker', ['compose', '-f', COMPOSE_FILE, '--profile', 'tools', 'config', '-q'], {
      encoding: 'utf8',
      cwd: DEPLOY,
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('runs a three-node NATS 2.10 cluster with JetStream', () => {
    expect(nats).toHaveLength(3);
    const names = nats.map(([name]) => name);
    const configs = new Set<string>();
    const serverNames = new Set<string>();
    for (const [, svc] of nats) {
      const cmd = (svc.command as string[]).join(' ');
      const target = /--config\s+(\S+)/.exec(cmd)?.[1];
      const mount = (svc.volumes as string[]).find((v) => v.split(':')[1] === target);
      expect(mount).toBeDefined();
      configs.add(resolve(DEPLOY, mount!.split(':')[0]));
      serverNames.add(/--name\s+(\S+)/.exec(cmd)?.[1] ?? '');
      // JetStream data on a named volume
      expect((svc.volumes as string[]).some((v) => /^[a-z0-9-]+:\/data$/.test(v))).toBe(true);
      expect(svc.healthcheck?.test).toBeDefined();
    }
    expect([...serverNames].sort()).toEqual([...names].sort());
    for (const file of configs) {
      expect(dirname(file)).toBe(join(DEPLOY, 'nats'));
      const conf = readFileSync(file, 'utf8').replace(/#.*$/gm, '');
      expect(conf).toMatch(/jetstream\s*\{[^}]*store_dir:\s*\/data\//);
      const cluster = /cluster\s*\{([\s\S]*?)\n\}/.exec(conf)?.[1] ?? '';
      expect(cluster).toMatch(/name:\s*\S+/);
      expect(cluster).toMatch(/port:\s*6222/);
      for (const n of names) expect(cluster).toContain(`nats-route://${n}:6222`);
      expect(conf).toMatch(/http_port:\s*8222/);
    }
  });

  it('runs ClickHouse with persistent storage and a healthcheck', () => {
    const ch = entries.filter(([, s]) => /^clickhouse\/clickhouse-server:\d+\.\d+/.test(String(s.image)));
    expect(ch).toHaveLength(1);
    const [, svc] = ch[0];
    expect((svc.volumes as string[]).some((v) => v.endsWith(':/var/lib/clickhouse'))).toBe(true);
    expect(svc.healthcheck?.test).toBeDefined();
  });

  it('runs two API replicas and a projector from the same image', () => {
    expect(withRole('api').reduce((n, [, s]) => n + replicas(s), 0)).toBe(2);
    expect(withRole('projector').reduce((n, [, s]) => n + replicas(s), 0)).toBeGreaterThanOrEqual(1);
    expect(new Set(tapedeck.map(([, s]) => s.image)).size).toBe(1);
    for (const [, svc] of tapedeck) {
      expect(existsSync(resolve(DEPLOY, svc.build.context, svc.build.dockerfile))).toBe(true);
      expect(resolve(DEPLOY, svc.build.context, svc.build.dockerfile)).toBe(DOCKERFILE);
    }
  });

  it('sets only documented variables on Tapedeck services, with values the service accepts', () => {
    expect(tapedeck.length).toBeGreaterThanOrEqual(2);
    for (const [name, svc] of tapedeck) {
      const env = envMap(svc.environment);
      expect({ service: name, undocumented: Object.keys(env).filter((k) => !DOCUMENTED.has(k)) }).toEqual({
        service: name,
        undocumented: [],
      });
      expect(() => validateConfig(env)).not.toThrow();
      expect(env.STREAM_REPLICAS).toBe('3');
      // Every NATS node is listed, so a client survives the loss of any one of them.
      const urls = env.NATS_URL.split(',').map((u) => new URL(u.trim()));
      expect(urls.map((u) => u.hostname).sort()).toEqual(nats.map(([n]) => n).sort());
      expect(services[new URL(env.CLICKHOUSE_URL).hostname]).toBeDefined();
      expect(Number(env.INGEST_MAX_BODY_BYTES ?? MIN_BODY_BYTES)).toBeGreaterThanOrEqual(MIN_BODY_BYTES);
      // Starts only once NATS and ClickHouse are healthy.
      for (const dep of [...nats.map(([n]) => n), 'clickhouse']) {
        expect(svc.depends_on?.[dep]?.condition).toBe('service_healthy');
      }
    }
  });

  it('has a healthcheck on every long-running service', () => {
    for (const [name, svc] of entries) {
      if (svc.profiles) continue; // operator tools, started on demand
      expect({ name, healthcheck: Boolean(svc.healthcheck?.test) }).toEqual({ name, healthcheck: true });
    }
  });

  it('refers only to declared volumes, existing files and existing services', () => {
    const declared = new Set(Object.keys(compose.volumes ?? {}));
    for (const [name, svc] of entries) {
      for (const v of (svc.volumes ?? []) as string[]) {
        const source = v.split(':')[0];
        if (source.startsWith('.') || source.startsWith('/')) {
          expect({ name, source, exists: existsSync(resolve(DEPLOY, source)) }).toEqual({ name, source, exists: true });
        } else {
          expect({ name, source, declared: declared.has(source) }).toEqual({ name, source, declared: true });
        }
      }
      const deps = Array.isArray(svc.depends_on) ? svc.depends_on : Object.keys(svc.depends_on ?? {});
      for (const dep of deps) expect(services[dep]).toBeDefined();
    }
  });

  describe('reverse proxy', () => {
    it('is the only service publishing a port', () => {
      expect(proxies).toHaveLength(1);
      expect(entries.filter(([, s]) => s.ports?.length).map(([n]) => n)).toEqual([proxies[0][0]]);
    });

    const [, proxy] = proxies[0] ?? [undefined, {}];
    const confMount = ((proxy.volumes ?? []) as string[]).find((v) => v.startsWith('./'));
    const conf = confMount ? readFileSync(resolve(DEPLOY, confMount.split(':')[0]), 'utf8').replace(/#.*$/gm, '') : '';
    const apiServices = withRole('api').map(([n]) => n);

    it('balances over the API replicas round robin, without stickiness', () => {
      const upstream = /upstream\s+(\S+)\s*\{([\s\S]*?)\}/.exec(conf);
      expect(upstream).not.toBeNull();
      const servers = [...upstream![2].matchAll(/^\s*server\s+([^\s;]+)/gm)].map((m) => m[1]);
      expect(servers.map((s) => s.split(':')[0]).sort()).toEqual([...apiServices].sort());
      expect(servers.every((s) => s.endsWith(':3000'))).toBe(true);
      expect(upstream![2]).not.toMatch(/\b(ip_hash|hash|sticky)\b/);
      expect(conf).toContain(`proxy_pass http://${upstream![1]}`);
    });

    it('upgrades WebSockets on both ingestion paths, with long timeouts', () => {
      expect(conf).toMatch(/proxy_http_version\s+1\.1;/);
      expect(conf).toMatch(/proxy_set_header\s+Upgrade\s+\$http_upgrade;/);
      expect(conf).toMatch(/proxy_set_header\s+Connection\s+\$connection_upgrade;/);
      expect(conf).toMatch(/map\s+\$http_upgrade\s+\$connection_upgrade\s*\{[^}]*default\s+upgrade;/);
      const locations = [...conf.matchAll(/location\s+~\*?\s+(\S+)\s*\{([^}]*)\}/g)];
      for (const path of ['/recordings/0b6d5f7e-2a4c-4f7e-9c1a-3d2e1f0a9b8c/events/ws', '/recordings/abc/ingest/ws']) {
        const loc = locations.find(([, re]) => new RegExp(re).test(path));
        expect({ path, routed: Boolean(loc) }).toEqual({ path, routed: true });
        const read = /proxy_read_timeout\s+(\S+);/.exec(loc![2])?.[1];
        const send = /proxy_send_timeout\s+(\S+);/.exec(loc![2])?.[1];
        expect(nginxSeconds(read ?? '0')).toBeGreaterThanOrEqual(MIN_WS_TIMEOUT_SECONDS);
        expect(nginxSeconds(send ?? '0')).toBeGreaterThanOrEqual(MIN_WS_TIMEOUT_SECONDS);
      }
    });

    it('accepts bodies of at least 64 MiB', () => {
      const sizes = [...conf.matchAll(/client_max_body_size\s+(\S+);/g)].map((m) => nginxSize(m[1]));
      expect(sizes.length).toBeGreaterThan(0);
      expect(Math.min(...sizes)).toBeGreaterThanOrEqual(MIN_BODY_BYTES);
    });
  });
});

// ------------------------------------------------------------------------------------------------
// Kubernetes

type K8sObject = Obj & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
};

const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'PersistentVolume', 'StorageClass', 'IngressClass']);

describe('deploy/k8s', () => {
  const files = readdirSync(K8S)
    .filter((f) => /\.ya?ml$/.test(f) && statSync(join(K8S, f)).isFile())
    .sort();
  const manifestFiles = files.filter((f) => f !== 'kustomization.yaml');
  const objects: Array<{ file: string; obj: K8sObject }> = manifestFiles.flatMap((file) =>
    loadYaml(join(K8S, file)).map((obj) => ({ file, obj: obj as K8sObject })),
  );
  const all = objects.map((o) => o.obj);
  const ofKind = (kind: string) => all.filter((o) => o.kind === kind);
  const deployments = ofKind('Deployment');
  const roleOf = (d: K8sObject) =>
    (d.spec.template.spec.containers as Obj[]).flatMap((c) => (c.env ?? []) as Obj[]).find((e) => e.name === 'TAPEDECK_ROLE')?.value;
  const api = deployments.find((d) => roleOf(d) === 'api');
  const projector = deployments.find((d) => roleOf(d) === 'projector');

  it('has manifests', () => {
    expect(manifestFiles.length).toBeGreaterThan(0);
    expect(objects.length).toBeGreaterThan(0);
  });

  it.each(objects.map(({ file, obj }) => [`${file}: ${obj?.kind}/${obj?.metadata?.name}`, obj] as const))(
    '%s has apiVersion, kind, metadata.name and the tapedeck namespace',
    (_label, obj) => {
      expect(typeof obj.apiVersion).toBe('string');
      expect(typeof obj.kind).toBe('string');
      expect(obj.metadata?.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      if (CLUSTER_SCOPED.has(obj.kind)) expect(obj.metadata.namespace).toBeUndefined();
      else expect(obj.metadata.namespace).toBe('tapedeck');
    },
  );

  it.each(objects.map(({ file, obj }) => [`${file}: ${obj?.kind}/${obj?.metadata?.name}`, obj] as const))(
    '%s validates against the Kubernetes OpenAPI schema (kubernetes-models)',
    (_label, obj) => {
      // kubernetes-models publishes one module per kind: kubernetes-models/<group/version|version>/<Kind>
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const mod = require(`kubernetes-models/${obj.apiVersion}/${obj.kind}`) as Record<string, new (d: unknown) => { validate(): void }>;
      const Model = mod[obj.kind];
      expect(Model).toBeDefined();
      expect(() => new Model(obj).validate()).not.toThrow();
    },
  );

  it('kustomization.yaml lists every manifest except the secret template', () => {
    const [k] = loadYaml(join(K8S, 'kustomization.yaml'));
    expect(k.kind).toBe('Kustomization');
    const resources = [...(k.resources as string[])].sort();
    expect(resources).toEqual(manifestFiles.filter((f) => !/template/.test(f)).sort());
    expect(manifestFiles.some((f) => /^secret\.template\.ya?ml$/.test(f))).toBe(true);
  });

  it('has one API and one projector Deployment, from the same image', () => {
    expect(deployments).toHaveLength(2);
    expect(api).toBeDefined();
    expect(projector).toBeDefined();
    const image = (d: K8sObject) => d.spec.template.spec.containers[0].image;
    expect(image(api!)).toBe(image(projector!));
  });

  describe.each(['api', 'projector'])('%s Deployment', (role) => {
    const d = () => deployments.find((x) => roleOf(x) === role)!;

    it('selects its own pod template', () => {
      expect(labelsMatch(d().spec.selector.matchLabels, d().spec.template.metadata.labels)).toBe(true);
    });

    it('probes readiness on /readyz and liveness on /healthz, on a declared port', () => {
      for (const c of d().spec.template.spec.containers as Obj[]) {
        expect(c.readinessProbe?.httpGet?.path).toBe('/readyz');
        expect(c.livenessProbe?.httpGet?.path).toBe('/healthz');
        const ports = (c.ports as Obj[]).flatMap((p) => [p.name, p.containerPort]);
        for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe].filter(Boolean)) {
          expect(ports).toContain(probe.httpGet.port);
        }
      }
    });

    it('sets resource requests and limits (requests within limits)', () => {
      for (const c of d().spec.template.spec.containers as Obj[]) {
        for (const r of ['cpu', 'memory']) {
          expect(c.resources?.requests?.[r]).toBeDefined();
          expect(c.resources?.limits?.[r]).toBeDefined();
          expect(quantity(c.resources.requests[r])).toBeLessThanOrEqual(quantity(c.resources.limits[r]));
        }
      }
    });

    it('runs as non-root without privilege escalation', () => {
      const pod = d().spec.template.spec;
      expect(pod.securityContext?.runAsNonRoot).toBe(true);
      for (const c of pod.containers as Obj[]) expect(c.securityContext?.allowPrivilegeEscalation).toBe(false);
    });
  });

  it('sets only documented variables, with values the service accepts', () => {
    const configMaps = new Map(ofKind('ConfigMap').map((c) => [c.metadata.name, c]));
    const secrets = new Map(ofKind('Secret').map((s) => [s.metadata.name, s]));
    for (const cm of configMaps.values()) {
      expect(Object.keys(cm.data ?? {}).filter((k) => !DOCUMENTED.has(k))).toEqual([]);
      expect(cm.data.STREAM_REPLICAS).toBe('3');
    }
    for (const s of secrets.values()) {
      expect(Object.keys({ ...s.data, ...s.stringData }).filter((k) => !DOCUMENTED.has(k))).toEqual([]);
    }
    for (const d of deployments) {
      for (const c of d.spec.template.spec.containers as Obj[]) {
        const env: Record<string, string> = {};
        for (const from of (c.envFrom ?? []) as Obj[]) {
          if (from.configMapRef) {
            const cm = configMaps.get(from.configMapRef.name);
            expect({ configMap: from.configMapRef.name, found: Boolean(cm) }).toEqual({ configMap: from.configMapRef.name, found: true });
            Object.assign(env, cm!.data);
          }
          if (from.secretRef) {
            const s = secrets.get(from.secretRef.name);
            expect({ secret: from.secretRef.name, found: Boolean(s) }).toEqual({ secret: from.secretRef.name, found: true });
            Object.assign(env, s!.stringData);
          }
        }
        for (const e of (c.env ?? []) as Obj[]) env[e.name] = e.value;
        expect(Object.keys(env).filter((k) => !DOCUMENTED.has(k))).toEqual([]);
        expect(() => validateConfig(env)).not.toThrow();
      }
    }
  });

  it('autoscales the API Deployment (and only it) on CPU', () => {
    const hpas = ofKind('HorizontalPodAutoscaler');
    expect(hpas).toHaveLength(1);
    const [hpa] = hpas;
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: api!.metadata.name });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec.maxReplicas).toBeGreaterThanOrEqual(hpa.spec.minReplicas);
    expect((hpa.spec.metrics as Obj[]).some((m) => m.type === 'Resource' && m.resource?.name === 'cpu')).toBe(true);
    // The HPA owns the replica count; a fixed one would be reset on every apply.
    expect(api!.spec.replicas).toBeUndefined();
    expect(projector!.spec.replicas).toBeGreaterThanOrEqual(2);
  });

  it('exposes the API pods (only) through a Service without session affinity', () => {
    const svc = ofKind('Service').find((s) => labelsMatch(s.spec.selector, api!.spec.template.metadata.labels));
    expect(svc).toBeDefined();
    expect(labelsMatch(svc!.spec.selector, projector!.spec.template.metadata.labels)).toBe(false);
    expect(svc!.spec.sessionAffinity ?? 'None').toBe('None');
    const ports = (api!.spec.template.spec.containers[0].ports as Obj[]).flatMap((p) => [p.name, p.containerPort]);
    for (const p of svc!.spec.ports as Obj[]) expect(ports).toContain(p.targetPort);
  });

  it('routes the Ingress to the API Service with WebSocket-friendly settings', () => {
    const ingresses = ofKind('Ingress');
    expect(ingresses).toHaveLength(1);
    const [ing] = ingresses;
    const services = new Map(ofKind('Service').map((s) => [s.metadata.name, s]));
    for (const rule of ing.spec.rules as Obj[]) {
      for (const p of rule.http.paths as Obj[]) {
        const svc = services.get(p.backend.service.name);
        expect(svc).toBeDefined();
        expect((svc!.spec.ports as Obj[]).some((sp) => sp.name === p.backend.service.port.name || sp.port === p.backend.service.port.number)).toBe(true);
      }
    }
    const a = ing.metadata.annotations as Record<string, string>;
    expect(nginxSize(a['nginx.ingress.kubernetes.io/proxy-body-size'])).toBeGreaterThanOrEqual(MIN_BODY_BYTES);
    expect(Number(a['nginx.ingress.kubernetes.io/proxy-read-timeout'])).toBeGreaterThanOrEqual(MIN_WS_TIMEOUT_SECONDS);
    expect(Number(a['nginx.ingress.kubernetes.io/proxy-send-timeout'])).toBeGreaterThanOrEqual(MIN_WS_TIMEOUT_SECONDS);
    expect(Object.keys(a).filter((k) => /affinity|upstream-hash-by/.test(k))).toEqual([]);
  });

  it('protects both Deployments with a PodDisruptionBudget', () => {
    const pdbs = ofKind('PodDisruptionBudget');
    for (const d of [api!, projector!]) {
      const matching = pdbs.filter((p) => labelsMatch(p.spec.selector.matchLabels, d.spec.template.metadata.labels));
      expect({ deployment: d.metadata.name, pdbs: matching.length }).toEqual({ deployment: d.metadata.name, pdbs: 1 });
    }
  });
});
