// @ts-check

/**
 * The API's word lists the console offers as choices: finding severities, highest first
 * (core/domain/severity.ts), and asset types (core/domain/asset-type.ts). The console
 * cannot import the server's TypeScript; test/core/domain/vocabulary.test.ts checks that
 * these stay equal and that no other copy of either list is written anywhere.
 */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'];

export const ASSET_TYPES = ['domain', 'ip', 'url', 'network'];
