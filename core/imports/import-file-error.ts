/**
 * A file that cannot be imported: not the declared format, malformed, or outside a limit.
 * `where` names the place as a JSONPath (`$.runs[0].results[3].level`) or a line
 * (`line 17`); the import service turns it into a 400 naming it, with nothing written.
 */
export class ImportFileError extends Error {
  readonly where: string | null;

  constructor(message: string, where: string | null) {
    super(message);
    this.name = 'ImportFileError';
    this.where = where;
  }
}
