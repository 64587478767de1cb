import { fuzzPart } from './openapi-fuzz-run.ts';

// Part 1 of the OpenAPI fuzz (openapi-fuzz-run.ts deals the operations into three files).
fuzzPart(1);
