/**
 * Evidence of what a check or an importer observed: the spec's keys plus free-form
 * details. Checks report it (plugin contract), findings store it as JSON.
 */
export interface Evidence {
  url?: string;
  method?: string;
  parameter?: string;
  payload?: string;
  /** What in the response showed the problem (header value, banner, record text…). */
  response_indicator?: string;
  [key: string]: unknown;
}
