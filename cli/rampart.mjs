#!/usr/bin/env node
// The `rampart` bin (package.json "bin"; `npx rampart …` from a checkout). It only loads the
// TypeScript entry through tsx; a compiled build can point its bin at the compiled main.js,
// which exports the same runCli(argv).
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('./main.ts');
process.exitCode = await runCli(process.argv.slice(2));
