// zkit for Node.js: typed methods for the zkit Redis module's commands over
// ioredis and node-redis, routed to the right cluster node on the first try,
// with the zkit module or zkit's Functions library (servers that refuse modules).

export { Zkit, zkit } from './client';
export type { ZkitOptions } from './client';
export { ZkitNotLoaded } from './engine';
export type { Engine } from './engine';
export { COMMANDS } from './table';
export type {
  DeadLetter,
  DelayAddOptions,
  Delivery,
  IdmpOption,
  JobPollOptions,
  Key,
  Lease,
  PollOptions,
  PollRate,
  RankSetCondition,
  RateLimit,
  ScheduledJob,
  ScheduledTask,
  ScheduleOptions,
  SharedOption,
} from './commands';
export type { ZkitCommands } from './methods';
export { zkitFunctionsModule, zkitModule } from './node-redis';
export type { ZkitModule } from './node-redis';
export { CrossSlotError, keySlot } from './slot';
export { DelayWorker, failureReason, REASON_MAX_CHARS } from './worker';
export type { DelayWorkerCommonOptions, DelayWorkerOptions } from './worker';
export type * from './replies';
