// The layout rules DESIGN.md describes, as functions of a tree: the repository, or a few
// planted files (architecture.test.ts runs each on both, so every rule is shown to catch
// what it forbids). Each rule names every import that breaks it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cyclesOf, importsOfText, sourceFiles, under, type ImportEdge } from './import-graph.ts';

export interface Tree {
  files: readonly string[];
  edges: readonly ImportEdge[];
  text(file: string): string;
  /** A repo path that exists (a file, or a folder holding one). */
  exists(path: string): boolean;
}

export function repoTree(root: string, folders: readonly string[]): Tree {
  const files = sourceFiles(root, folders.filter((f) => existsSync(join(root, f))));
  const texts = new Map(files.map((f) => [f, readFileSync(join(root, f), 'utf8')]));
  return { files, edges: files.flatMap((f) => importsOfText(f, texts.get(f)!)), text: (f) => texts.get(f) ?? '', exists: (p) => existsSync(join(root, p)) };
}

/** A tree of the given files alone (repo path → text). */
export function plantedTree(planted: Record<string, string>): Tree {
  const files = Object.keys(planted).sort();
  return { files, edges: files.flatMap((f) => importsOfText(f, planted[f]!)), text: (f) => planted[f] ?? '', exists: (p) => files.some((f) => under(f, p)) };
}

export interface Rule {
  name: string;
  /** What to do about a break, printed above the list. */
  advice: string;
  check(tree: Tree): string[];
}

const show = (e: ImportEdge): string => `${e.from}:${e.line} imports ${e.to}`;
/** An import of Rampart's own code (a repo path), as opposed to a package or a builtin. */
const internal = (tree: Tree, e: ImportEdge): boolean => tree.exists(e.to) || /^(core|plugins|scanners|executors|forwarders|agent|cli|config)\//.test(e.to);
const withoutComments = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

/** Where SQL may be built: repositories, the database layer and the durable-work kernel. */
const isQueryLayer = (f: string): boolean => /-repository\.ts$/.test(f) || under(f, 'core/db', 'core/work');

/** Extensions: everything a third party could have written (the fixtures' own folders among them). */
function extensionRoots(tree: Tree): string[] {
  const fixtures = [...new Set(tree.files.filter((f) => under(f, 'test/fixtures')).map((f) => f.split('/').slice(0, 3).join('/')))];
  return ['scanners', 'executors', 'forwarders', 'plugins/forwarders', ...fixtures];
}
const CONTRACT = ['core/plugin-api', 'rampart/plugin-api', 'rampart/author-kit'];

/** The files a scanner may open raw sockets in: each refuses a name (addressOnly) before connecting. */
export const RAW_NETWORK_HELPERS = [
  'scanners/_lib/connect-engine.mjs',
  'scanners/_lib/exchange.ts',
  'scanners/_lib/socket-session.ts',
  'scanners/_lib/tcp-connect.ts',
  'scanners/_lib/tls-handshake.ts',
  'scanners/ssl/raw/raw-probe.ts',
  'scanners/dns/dns-client.ts',
];
const NETWORK_MODULES = /^(node:)?(net|tls|dgram|dns|dns\/promises|http|https|http2)$|^undici(\/|$)/;
/** What a scanner file may take from those modules outside the helpers: pure address functions, and types. */
const HARMLESS = new Set(['isIP', 'isIPv4', 'isIPv6']);

/**
 * Tables and the feature that owns them: only code in that folder writes them (schema changes
 * in core/db/migrations aside). Rows removed by ON DELETE CASCADE (an asset's findings go
 * with it) are the database's doing, not a write by another feature: no exception is needed.
 */
export const TABLE_OWNERS: Readonly<Record<string, string>> = {
  ...owned('core/findings', 'findings', 'finding_notes', 'finding_status_history', 'finding_counters', 'finding_daily', 'finding_words', 'findings_fts',
    'finding_sources', 'finding_keys', 'finding_cves', 'finding_merges', 'finding_rededup_progress'),
  ...owned('core/scans', 'scans', 'scan_checks', 'scan_findings', 'scan_schedules', 'check_stats', 'scan_callbacks'),
  ...owned('core/exports', 'finding_exports'),
  ...owned('core/assets', 'assets', 'asset_tags'),
  ...owned('core/inventory', 'asset_inventories', 'sboms', 'sbom_components', 'sbom_dependencies', 'sbom_changes'),
  ...owned('core/auth', 'tenants', 'users', 'api_tokens'),
  ...owned('core/sso', 'sso_identities', 'sso_logins'),
  ...owned('core/secrets', 'credentials'),
  ...owned('core/actions', 'actions', 'action_versions'),
  ...owned('core/action-runs', 'action_executions', 'action_execution_logs'),
  ...owned('core/agents', 'agents', 'agent_jobs', 'agent_job_logs'),
  ...owned('core/approvals', 'approval_requests', 'approval_decisions'),
  ...owned('core/playbooks', 'playbooks', 'playbook_versions', 'playbook_tags', 'playbook_runs', 'playbook_step_runs'),
  ...owned('core/events', 'events', 'event_cursors'),
  ...owned('core/webhooks', 'webhooks', 'webhook_deliveries', 'webhook_attempts'),
  ...owned('core/siem', 'siem_integrations'),
  ...owned('core/feeds', 'feed_loads', 'feeds_current', 'feed_changes', 'feed_fetches', 'kev_entries', 'epss_scores'),
  ...owned('core/db', 'change_clock'),
};

function owned(folder: string, ...tables: string[]): Record<string, string> {
  return Object.fromEntries(tables.map((t) => [t, folder]));
}

/** The tables migrations create (`createTable(db, 't'` or `schema.createTable('t'`), each with its file. */
export function createdTables(text: string): string[] {
  return [...withoutComments(text).matchAll(/createTable\(\s*(?:\w+\s*,\s*)?['"`]([a-z_0-9]+)['"`]/g)].map((m) => m[1]!);
}
const OWNED = Object.keys(TABLE_OWNERS).sort((a, b) => b.length - a.length).join('|');
// `db('t')…insert(` within one statement; insertBatched(db, 't'); SQL text writing t.
const BUILDER = new RegExp(`\\b\\w+\\(\\s*['"\`](${OWNED})(?:\\s+as\\s+\\w+)?['"\`]\\s*\\)([^;]*)`, 'g');
const WRITE_CALL = /\.(insert|update|upsert|del|delete|increment|decrement|truncate|merge)\(/;
const BATCH = new RegExp(`\\binsertBatched\\(\\s*\\w+\\s*,\\s*['"](${OWNED})['"]`, 'g');
const RAW_SQL = new RegExp(`\\b(?:insert\\s+(?:ignore\\s+)?into|replace\\s+into|update|delete\\s+from)\\s+[\`"]?(${OWNED})\\b(?![.(])`, 'gi');

/** The owned tables a file writes, each with its line. */
export function tableWrites(text: string): Array<{ table: string; line: number }> {
  const code = withoutComments(text);
  const out: Array<{ table: string; line: number }> = [];
  const at = (index: number) => code.slice(0, index).split('\n').length;
  for (const m of code.matchAll(BUILDER)) if (WRITE_CALL.test(m[2]!)) out.push({ table: m[1]!, line: at(m.index!) });
  for (const m of code.matchAll(BATCH)) out.push({ table: m[1]!, line: at(m.index!) });
  for (const m of code.matchAll(RAW_SQL)) out.push({ table: m[1]!.toLowerCase(), line: at(m.index!) });
  return out;
}

export const RULES: Rule[] = [
  {
    name: 'every table has an owning feature',
    advice: 'add the new table to TABLE_OWNERS in test/architecture/rules.ts with the feature folder that writes it.',
    check(tree) {
      return tree.files
        .filter((f) => under(f, 'core/db/migrations'))
        .flatMap((f) => createdTables(tree.text(f)).filter((t) => !(t in TABLE_OWNERS)).map((t) => `${f} creates ${t}, which TABLE_OWNERS does not list`));
    },
  },
  {
    name: 'a table is written only by the feature that owns it',
    advice: 'call the owning feature (its service or an exported function of its folder) instead of writing its table; TABLE_OWNERS in test/architecture/rules.ts names each owner.',
    check(tree) {
      const broken: string[] = [];
      for (const f of tree.files) {
        if (under(f, 'core/db/migrations') || !/\.(ts|mts|mjs|js)$/.test(f)) continue;
        for (const w of tableWrites(tree.text(f))) {
          const owner = TABLE_OWNERS[w.table]!;
          if (!under(f, owner)) broken.push(`${f}:${w.line} writes ${w.table}, owned by ${owner}`);
        }
      }
      return broken;
    },
  },
  {
    name: 'knex only in repositories, core/db and core/work',
    advice: "only repositories (*-repository.ts), core/db/ and core/work/ use knex; move the query into the feature's repository.",
    check(tree) {
      const broken = tree.edges.filter((e) => e.to === 'knex' && under(e.from, 'core', 'plugins') && !isQueryLayer(e.from)).map(show);
      // Building a query without importing knex: `db('table')`, `trx('table')`, `.raw(`.
      const QUERY = /\b(?:db|trx|tx|knex|this\.db|deps\.db)\s*\(\s*['"][a-z_]+['"]|\.raw\(/;
      for (const f of tree.files) {
        if (!under(f, 'core', 'plugins') || isQueryLayer(f) || under(f, 'core/db/migrations')) continue;
        tree.text(f).split('\n').forEach((text, i) => {
          if (QUERY.test(text) && !/^\s*(\/\/|\*)/.test(text)) broken.push(`${f}:${i + 1} builds a query: ${text.trim().slice(0, 100)}`);
        });
      }
      return broken;
    },
  },
  {
    name: 'routes never import repositories',
    advice: 'route plugins (plugins/<area>/) call services only; add a service method instead of importing a repository.',
    check(tree) {
      const roots = extensionRoots(tree);
      return tree.edges.filter((e) => under(e.from, 'plugins') && !roots.some((r) => under(e.from, r)) && (/-repository\.ts$/.test(e.to) || e.to === 'knex')).map(show);
    },
  },
  {
    name: 'extensions import only the public contract',
    advice: 'scanners, executors, forwarders and third-party fixtures import only the contract (core/plugin-api, rampart/plugin-api, rampart/author-kit), their own folder and npm packages.',
    check(tree) {
      const roots = extensionRoots(tree);
      return tree.edges
        .filter((e) => {
          const own = roots.find((r) => under(e.from, r));
          if (!own) return false;
          if (!e.to.includes('/') && !e.to.startsWith('.')) return false; // a bare npm package or builtin
          if (e.to.startsWith('node:') || under(e.to, own)) return false;
          if (CONTRACT.some((c) => under(e.to, c))) return false;
          // Anything else inside the repository, or a package path into Rampart, breaks the boundary.
          return !/^(@[^/]+\/)?[a-z0-9][\w.-]*(\/|$)/.test(e.to) || e.to.startsWith('rampart') || tree.exists(e.to);
        })
        .map(show);
    },
  },
  {
    name: 'the contract, the agent protocol and the shared words import nothing internal',
    advice: 'core/domain/ imports nothing; core/plugin-api/ and core/agent-protocol.ts import only the contract and core/domain/.',
    check(tree) {
      return tree.edges
        .filter((e) => {
          if (!internal(tree, e)) return false;
          if (under(e.from, 'core/domain')) return !under(e.to, 'core/domain');
          if (under(e.from, 'core/plugin-api', 'core/agent-protocol.ts')) return !under(e.to, 'core/plugin-api', 'core/domain');
          return false;
        })
        .map(show);
    },
  },
  {
    name: 'nothing in core/ imports plugins/, scanners/, executors/ or forwarders/',
    advice: 'core/ knows extensions only through the loader and the contract, and route plugins only through core/main.ts (the entry point, which nothing imports).',
    check(tree) {
      // The one exception is the process entry point: it hands the route list (plugins/index.ts)
      // to createApp, as the test harness does; nothing in core/ imports the entry point.
      const entry = (e: ImportEdge): boolean => e.from === 'core/main.ts' && e.to === 'plugins/index.ts';
      const broken = tree.edges.filter((e) => under(e.from, 'core') && under(e.to, 'plugins', 'scanners', 'executors', 'forwarders') && !entry(e)).map(show);
      return [...broken, ...tree.edges.filter((e) => under(e.from, 'core') && e.to === 'core/main.ts').map(show)];
    },
  },
  {
    name: 'no import cycles between folders',
    advice: 'folders depend on each other in one direction; break each cycle below by moving the shared piece down (often to core/domain/).',
    check(tree) {
      // A folder is core/<feature>, plugins/<area>, scanners/<name>…; a file directly in core/ counts alone.
      const unit = (p: string): string => (p.split('/').length === 2 ? p : p.split('/').slice(0, 2).join('/'));
      const graph = new Map<string, Set<string>>();
      const why = new Map<string, string>();
      for (const e of tree.edges) {
        if (!tree.exists(e.to)) continue;
        const [a, b] = [unit(e.from), unit(e.to)];
        if (a === b) continue;
        if (!graph.has(a)) graph.set(a, new Set());
        graph.get(a)!.add(b);
        if (!why.has(`${a}>${b}`)) why.set(`${a}>${b}`, show(e));
      }
      return cyclesOf(graph).map((scc) => {
        const inside = new Set(scc);
        const edges = scc.flatMap((a) => [...(graph.get(a) ?? [])].filter((b) => inside.has(b)).map((b) => why.get(`${a}>${b}`)!));
        return `${scc.join(' <-> ')}\n      ${edges.join('\n      ')}`;
      });
    },
  },
  {
    name: 'the engine never imports the author kit',
    advice: 'the author kit is for plugin authors\' tests; engine code imports what it needs from core/plugins/, where the kit\'s code lives.',
    check(tree) {
      return tree.edges.filter((e) => under(e.from, 'core', 'plugins', 'agent', 'cli') && !under(e.from, 'core/author-kit') && (under(e.to, 'core/author-kit') || e.to === 'rampart/author-kit')).map(show);
    },
  },
  {
    name: 'the author kit only re-exports core/plugins/',
    advice: 'core/author-kit/ holds no code of its own and reaches no engine area directly: move the code to core/plugins/ and re-export it from there.',
    check(tree) {
      const broken: string[] = [];
      for (const f of tree.files.filter((file) => under(file, 'core/author-kit'))) {
        const own = withoutComments(tree.text(f)).replace(/export\s+(?:type\s+)?(?:\*|\{[^}]*\})\s+from\s+['"][^'"]+['"]\s*;?/g, '').trim();
        if (own) broken.push(`${f}: holds code of its own: ${own.replace(/\s+/g, ' ').slice(0, 80)}`);
        for (const e of tree.edges.filter((edge) => edge.from === f && internal(tree, edge) && !under(edge.to, 'core/plugins', 'core/plugin-api'))) broken.push(show(e));
      }
      return broken;
    },
  },
  {
    name: 'the agent imports only the contract, the agent protocol and executors/_lib',
    advice: 'agent/ is a separate program: it shares wire types through core/agent-protocol.ts, executor code through executors/_lib/ and the dependency-free core/work/heartbeat.ts; only its entry point (agent/main.ts) wires in the sandbox implementation.',
    check(tree) {
      const allowed = (e: ImportEdge): boolean =>
        under(e.to, 'agent', 'core/plugin-api', 'core/agent-protocol.ts', 'core/work/heartbeat.ts', 'executors/_lib') || (e.from === 'agent/main.ts' && e.to === 'core/sandbox/sandbox.ts');
      return tree.edges.filter((e) => under(e.from, 'agent') && internal(tree, e) && !allowed(e)).map(show);
    },
  },
  {
    name: 'scanners open sockets only to addresses, and send HTTP only through ctx.http',
    advice: `a check sends HTTP with ctx.http (scanners/_lib/http.ts) and opens raw sockets only through the helpers that refuse a name (${RAW_NETWORK_HELPERS.join(', ')}), after ctx.resolve.`,
    check(tree) {
      const broken: string[] = [];
      for (const f of tree.files.filter((file) => under(file, 'scanners'))) {
        const text = tree.text(f);
        const helper = RAW_NETWORK_HELPERS.includes(f);
        if (helper && !/\baddressOnly\(/.test(text)) broken.push(`${f}: opens sockets without addressOnly()`);
        if (helper) continue;
        for (const m of text.matchAll(/^\s*import\s+(type\s+)?([^'";]*?)\s+from\s+['"]([^'"]+)['"]/gm)) {
          if (!NETWORK_MODULES.test(m[3]!) || m[1]) continue;
          const named = /^\{([^}]*)\}$/.exec(m[2]!.trim())?.[1];
          const names = named?.split(',').map((n) => n.trim()).filter((n) => n && !n.startsWith('type ')) ?? [m[2]!.trim()];
          const reaching = names.filter((n) => !HARMLESS.has(n));
          if (reaching.length) broken.push(`${f}:${text.slice(0, m.index).split('\n').length} takes ${reaching.join(', ')} from ${m[3]}`);
        }
      }
      return broken;
    },
  },
];
