import { fuzzPart } from './openapi-fuzz-run.ts';

// Part 2 of the OpenAPI fuzz (openapi-fuzz-run.ts deals the operations into three files).
fuzzPart(2);
