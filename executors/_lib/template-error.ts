/**
 * Why a template could not be rendered. `code` becomes the failed run's error code; the
 * message names the variable or header, never a value (values may be secrets).
 * - `template_variable_missing`: a placeholder names a variable the run does not have.
 * - `invalid_template`: the rendered JSON does not parse, or a rendered URL is not a URL.
 * - `invalid_header_value`: a rendered header value holds CR, LF or NUL.
 */
export type TemplateErrorCode = 'template_variable_missing' | 'invalid_template' | 'invalid_header_value';

export class TemplateError extends Error {
  readonly code: TemplateErrorCode;

  constructor(code: TemplateErrorCode, message: string) {
    super(message);
    this.name = 'TemplateError';
    this.code = code;
  }
}
