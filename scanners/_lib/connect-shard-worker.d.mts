/** Types of connect-shard-worker.mjs. */
import type { MessagePort } from 'node:worker_threads';
import type { ConnectScanOptions, ConnectTarget, HostScanResult } from './connect-engine.mjs';

export interface ShardTask {
  targets: ConnectTarget[];
  options: Omit<ConnectScanOptions, 'signal' | 'onProgress'>;
  port: MessagePort;
}

export type ShardResult = HostScanResult[] | { error: { message: string; code: string | null; exhausted: boolean } };

export default function runShard(task: ShardTask): Promise<ShardResult>;
