// zkit for Node.js: typed methods for the zkit Redis module's commands over
// ioredis and node-redis, routed to the right cluster node on the first try,
// with the zkit module or zkit's Functions library (servers that refuse modules).

export { Zkit, zkit } from './client';
export type { ZkitOptions } from './client';
export { ZkitNotLoaded } from './engine';
export type { Engine } from './engine';
export { COMMANDS } from './table';
export type { DeadLetter, IdmpOption, Key, Lease, PollOptions, RankSetCondition, RateLimit, SharedOption, ZkitCommands } from './commands';
export { zkitFunctionsModule, zkitModule } from './node-redis';
export type { ZkitModule } from './node-redis';
export { CrossSlotError, keySlot } from './slot';
export { DelayWorker } from './worker';
export type { DelayWorkerOptions } from './worker';
export type * from './replies';
