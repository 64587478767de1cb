/**
 * The sensitive names the exposed-files check asks for (with `enable_bruteforce`) in
 * every directory the crawl found, and the names it derives from what it crawled. The
 * list is documented in README.md; a hit always needs a content proof
 * (content-signatures.ts), never a status code alone.
 */

/** Asked for in every directory (`/`, `/app/`, `/app/uploads/`…). */
export const DIRECTORY_NAMES: readonly string[] = [
  '.env', '.env.local', '.env.production', '.env.bak', '.env.old',
  '.git/config', '.git/HEAD',
  '.htpasswd', '.DS_Store',
  'dump.sql', 'backup.sql', 'db.sql', 'database.sql', 'data.sql',
  'backup.zip', 'backup.tar.gz', 'site.zip', 'www.zip',
  'wp-config.php~', 'wp-config.php.bak', 'wp-config.php.old', 'config.php~', 'config.php.bak',
  'id_rsa', 'id_ecdsa', 'id_ed25519',
];

/** Asked for at the root only (server-wide pages). */
export const ROOT_NAMES: readonly string[] = ['server-status'];

/** Backup copies of a crawled file an editor or an admin leaves behind (`index.php` → `index.php.bak`). */
export const FILE_SUFFIXES: readonly string[] = ['.bak', '.old', '~'];

/**
 * Files whose backup copy matters: server-side source and configuration, which the server
 * runs or hides but serves as plain text once renamed. A copy of a static page shows
 * nothing new, so `.html`, images and the like are not asked about.
 */
export const SOURCE_EXTENSIONS = /\.(php\d?|phtml|inc|asp|aspx|ashx|jsp|jspx|cfm|py|rb|pl|cgi|config|conf|ini|ya?ml|env|properties|xml)$/i;

/** Archives and dumps named after their directory (`/shop/` → `/shop.zip`, `/shop.tar.gz`, `/shop.sql`). */
export const DIRECTORY_ARCHIVES: readonly string[] = ['.zip', '.tar.gz', '.sql'];

/**
 * Every URL to probe, in the order they are sent: the root's names first, then each
 * directory's, then archives named after directories, then backup copies of crawled
 * files (so a budget that runs out cuts the least likely probes).
 */
export function probeUrls(origin: string, directories: readonly string[], files: readonly string[]): string[] {
  const out = new Set<string>();
  for (const name of ROOT_NAMES) out.add(`${origin}/${name}`);
  for (const dir of directories) for (const name of DIRECTORY_NAMES) out.add(`${dir}${name}`);
  for (const dir of directories) {
    const path = new URL(dir).pathname.replace(/\/$/, '');
    if (path) for (const ext of DIRECTORY_ARCHIVES) out.add(`${origin}${path}${ext}`);
  }
  for (const file of files) {
    const path = new URL(file).pathname;
    if (SOURCE_EXTENSIONS.test(path)) for (const suffix of FILE_SUFFIXES) out.add(`${origin}${path}${suffix}`);
  }
  return [...out];
}
