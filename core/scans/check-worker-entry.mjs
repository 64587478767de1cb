// piscina worker entry. Worker threads do not inherit the tsx loader that `--import tsx`
// installs in the main thread, so it is registered here before the TypeScript worker
// (and any TypeScript plugin module it imports) is loaded.
import { register } from 'tsx/esm/api';

register();
const worker = await import('./check-worker.ts');
export default worker.default;
