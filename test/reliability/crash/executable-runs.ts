import { existsSync, readFileSync } from 'node:fs';

/** The runs the fixture executables recorded (`writeScripts` in the playbook fixture): one line per process started. */
export function executableRuns(marker: string): Array<{ executionId: string; script: string; params: Record<string, unknown> }> {
  if (!existsSync(marker)) return [];
  return readFileSync(marker, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [executionId, script, ...rest] = line.split(' ');
      return { executionId: executionId!, script: script!, params: JSON.parse(rest.join(' ')) as Record<string, unknown> };
    });
}
