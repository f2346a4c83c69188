// A DELAY queue worker: at-least-once delivery with leases. The loop
// the job-queue guide (docs/guides/job-queue.md) describes, as tested
// code: block on the queue with DELAY.BPOLL, lease every claimed task
// into an in-flight set, run the handler, DELAY.ACK on success. A task whose handler fails, or whose worker
// dies, stays in the in-flight set until its lease ends; polling the
// in-flight set then delivers it again. With retryDelayMs a failed task goes
// back to its queue at once (DELAY.NACK), due after that delay; with
// deadLetter every poll counts deliveries and moves a task delivered too
// often to a dead-letter set; with renewLeases the worker extends the leases
// of the tasks it holds (DELAY.TOUCH) while their handlers run. Every claim
// asks for its deliveries' tokens (WITHTOKENS) and every ack, hand-back and
// renewal sends the token: once another worker has claimed a task whose
// lease ended, the first worker's late calls change nothing. With data (the
// queue's job data), the worker runs jobs: it polls with DATA, WITHDATA and
// WORKER, hands the handler each job's payload, hands a failed job back with
// the error's text as its reason, and its acks remove the job's data. On zkit's
// Functions library, which cannot block, delayBpoll polls with backoff
// instead (engine.ts): an idle worker asks every 250 ms at most.

import type { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import { Zkit, zkit } from './client';
import type { DeadLetter, Key } from './commands';
import type { Job, Task } from './replies';

/** A failed job's reason is the error's name and message, cut to this many characters. */
export const REASON_MAX_CHARS = 1000;

/** What DELAY.NACK records as a job's last failure reason: the error's name and message, at most REASON_MAX_CHARS characters. */
export function failureReason(error: unknown): string {
  const text = error instanceof Error ? (error.message ? `${error.name}: ${error.message}` : error.name) : String(error);
  return text.length <= REASON_MAX_CHARS ? text : `${text.slice(0, REASON_MAX_CHARS - 3)}...`;
}

/**
 * Options of a DelayWorker: of one that runs plain tasks (its handler is handed each Task), or with `data` of one that
 * runs jobs (its handler is handed each Job, with its payload).
 */
export type DelayWorkerOptions = DelayWorkerCommonOptions &
  (
    | { data?: undefined; handler: (task: Task) => Promise<void> | void }
    | {
        /**
         * The queue's job data hash, in the queue's slot ('{jobs}:data'): a paused queue delivers nothing, the holder is
         * recorded as `name`, a failed job is always handed back with the error's text as its reason (failureReason),
         * due retryDelayMs later (default leaseMs, as when its lease would have ended), and an ack removes its data.
         */
        data: Key;
        /** Runs one job (its payload and deliveries); as `handler` of a task worker otherwise. */
        handler: (job: Job) => Promise<void> | void;
        /** The holder DELAY.JOB shows. Default: host:pid. */
        name?: string;
      }
  );

/** What every DelayWorker takes. */
export interface DelayWorkerCommonOptions {
  /** The queue: a sorted set of task ids scored by due time (unix ms). */
  queue: Key;
  /** Where claimed tasks wait for their ack; in the queue's hash slot on a cluster ('{jobs}', '{jobs}:inflight'). */
  inflight: Key;
  /** Hand a task whose handler rejected back to the queue with DELAY.NACK, due this many ms later, instead of leaving it until its lease ends. Default: leave it. */
  retryDelayMs?: number;
  /**
   * Dead letters: every poll counts deliveries in `deliveries`, and a task already delivered
   * `maxDeliveries` times moves to `dead` instead of being delivered again; acks remove counts.
   * Both keys in the queue's hash slot on a cluster ('{jobs}:dead', '{jobs}:deliveries').
   */
  deadLetter?: DeadLetter;
  /**
   * Longer than any handler runs (unless renewLeases): a task whose lease ends is delivered again when a worker next
   * polls the in-flight set. Acks carry the delivery's token: a handler that outran its lease is still acked while no
   * other worker has claimed the task, and once one has, the late ack changes nothing and is told to onError. Default 60000.
   */
  leaseMs?: number;
  /**
   * Every third of leaseMs, extend the lease of every task of the batch not yet finished (DELAY.TOUCH),
   * so a handler may run longer than leaseMs while a dead worker's tasks still come back within leaseMs.
   * Each renewal keeps the new token DELAY.TOUCH returns; a task whose lease is gone (it ended, or another worker claimed
   * the task) is told to onError and dropped: not acked nor handed back. Handlers must not block the event loop. Default false.
   */
  renewLeases?: boolean;
  /** Tasks claimed per poll. Default 10. */
  count?: number;
  /**
   * How many handlers of a batch run at once (their promises in flight together); a batch is at most `count` tasks, so
   * give `count` at least this. Each task is acked or handed back as soon as its own handler settles. Default 1: one
   * after the other.
   */
  concurrency?: number;
  /** How long one DELAY.BPOLL waits, and so how soon stop() takes effect. Default 1000. */
  blockMs?: number;
  /** Pause after a failed poll (a dropped connection) before polling again. Default 500. */
  reconnectDelayMs?: number;
  /** Told of failed polls, handlers, acks and retries. Default: console.error. */
  onError?: (error: unknown, task?: Task | Job) => void;
}

/** A delivery the worker holds: a Task polled with WITHTOKENS, or a Job. */
type Delivery = Task | Job;

/** A task's lease as its worker holds it: its delivery's token, and the renewal under way (DELAY.TOUCH). */
interface Held {
  token: number;
  renewal: Promise<void>;
}

/**
 * Runs `handler` for the tasks of a DELAY queue, at least once each.
 * Give it a client of its own (`redis.duplicate()`): DELAY.BPOLL holds its
 * connection while it waits. The worker listens to the client's 'error'
 * events (passing them to onError): ioredis and node-redis reconnect by
 * themselves, but an 'error' event nobody listens to ends the process.
 */
export class DelayWorker {
  private readonly zkit: Zkit;
  private readonly leaseMs: number;
  private readonly count: number;
  private readonly concurrency: number;
  private readonly blockMs: number;
  private readonly reconnectDelayMs: number;
  private readonly onError: (error: unknown, task?: Delivery) => void;
  private readonly name: string;
  private stopping = false;
  /** When the in-flight set was last polled for expired leases. */
  private recoveredAt = -Infinity;

  constructor(
    client: unknown,
    private readonly options: DelayWorkerOptions,
  ) {
    this.zkit = zkit(client);
    this.leaseMs = options.leaseMs ?? 60_000;
    this.count = options.count ?? 10;
    this.concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1) {
      throw new RangeError(`concurrency must be an integer of at least 1, not ${options.concurrency}`);
    }
    this.blockMs = options.blockMs ?? 1_000;
    this.reconnectDelayMs = options.reconnectDelayMs ?? 500;
    this.onError = options.onError ?? ((error) => console.error('zkit worker:', error));
    this.name = (options.data !== undefined && options.name) || `${hostname()}:${process.pid}`;
    (client as Partial<EventEmitter>).on?.('error', (error: unknown) => this.onError(error));
  }

  /** Polls and handles tasks until stop(); resolves once stopped. */
  async run(): Promise<void> {
    while (!this.stopping) await this.runOnce();
  }

  /** Asks run() to finish the tasks it holds and resolve, within blockMs. */
  stop(): void {
    this.stopping = true;
  }

  /** Claims one batch (waiting up to blockMs), handles it, and resolves to how many tasks were acked. */
  async runOnce(): Promise<number> {
    let tasks: Delivery[];
    try {
      tasks = await this.claim(Date.now());
    } catch (error) {
      this.onError(error);
      await new Promise((resolve) => setTimeout(resolve, this.reconnectDelayMs));
      return 0;
    }
    // The leases of the tasks not yet finished: a renewal keeps the token DELAY.TOUCH returns, and drops a task whose
    // lease is gone.
    const held = new Map<Delivery, Held>(tasks.map((task) => [task, { token: task.token as number, renewal: Promise.resolve() }]));
    const renewing = this.options.renewLeases && tasks.length ? setInterval(() => this.renew(held), this.leaseMs / 3) : undefined;
    // One task: its handler, then its ack or hand-back; 1 when acked.
    const one = async (task: Delivery): Promise<number> => {
      let failure: { error: unknown } | undefined;
      try {
        await this.handle(task);
      } catch (error) {
        this.onError(error, task);
        failure = { error };
      }
      // The TOUCH under way changes the token to send.
      await held.get(task)?.renewal;
      const lease = held.get(task);
      held.delete(task);
      // Absent: a renewal found the lease gone and said so.
      if (lease === undefined || (failure && this.options.data === undefined && this.options.retryDelayMs === undefined)) return 0;
      return this.finish(task, lease.token, failure);
    };
    // `concurrency` runners, each taking the batch's next task when its own is done.
    let next = 0;
    const runner = async (): Promise<number> => {
      let acked = 0;
      while (next < tasks.length) acked += await one(tasks[next++]);
      return acked;
    };
    try {
      const runners = Array.from({ length: Math.min(this.concurrency, tasks.length) }, runner);
      return (await Promise.all(runners)).reduce((sum, acked) => sum + acked, 0);
    } finally {
      clearInterval(renewing);
    }
  }

  private handle(task: Delivery): Promise<void> | void {
    const { options } = this;
    return options.data === undefined ? options.handler(task as Task) : options.handler(task as Job);
  }

  /** Acks the delivery `token` of a task, or hands it back (a job with its reason) after its handler's `failure`; resolves to how many were acked. */
  private async finish(task: Delivery, token: number, failure: { error: unknown } | undefined): Promise<number> {
    const { queue, inflight, data, deadLetter } = this.options;
    try {
      if (failure) {
        const retryDelayMs = this.options.retryDelayMs ?? (data === undefined ? 0 : this.leaseMs);
        const nack = data === undefined ? { token } : { token, data, reason: failureReason(failure.error) };
        if (!(await this.zkit.delayNack(inflight, queue, task.task, retryDelayMs, nack))) {
          this.onError(new Error(`task ${task.task.toString()} outran its lease; not handed back, it runs again when delivered again`), task);
        }
        return 0;
      }
      const done = await this.zkit.delayAck(inflight, { leases: [{ task: task.task, token }], deliveries: deadLetter?.deliveries, data });
      if (!done) this.onError(new Error(`task ${task.task.toString()} outran its lease and another worker claimed it; not acked`), task);
      return done;
    } catch (error) {
      this.onError(error, task);
      return 0;
    }
  }

  /**
   * Extends the leases in `held`, all at once, each after its own previous renewal; keeps each delivery's new token,
   * and drops a task whose lease is gone, so it is not acked.
   */
  private renew(held: Map<Delivery, Held>): void {
    for (const [task, lease] of held) {
      lease.renewal = lease.renewal.then(async () => {
        if (held.get(task) !== lease) return; // finished meanwhile
        try {
          const renewed = await this.zkit.delayTouch(this.options.inflight, task.task, this.leaseMs, { token: lease.token });
          if (renewed) {
            lease.token = renewed;
          } else {
            held.delete(task);
            this.onError(new Error(`task ${task.task.toString()} lost its lease (it ended, or another worker claimed it); not acked`), task);
          }
        } catch (error) {
          this.onError(error, task);
        }
      });
    }
  }

  private async claim(now: number): Promise<Delivery[]> {
    const { inflight, queue, deadLetter, data } = this.options;
    const lease = { key: inflight, ms: this.leaseMs };
    const poll = (key: Key, timeoutMs?: number): Promise<Delivery[] | null> => {
      if (data !== undefined) {
        const jobs = { count: this.count, lease, deadLetter, data, withData: true as const, worker: this.name };
        return timeoutMs === undefined ? this.zkit.delayPoll(key, jobs) : this.zkit.delayBpoll(key, timeoutMs, jobs);
      }
      const tasks = { count: this.count, lease, deadLetter, withTokens: true };
      return timeoutMs === undefined ? this.zkit.delayPoll(key, tasks) : this.zkit.delayBpoll(key, timeoutMs, tasks);
    };
    // Expired leases first, at most once per blockMs: a busy queue must not
    // starve the tasks of a dead worker.
    if (now - this.recoveredAt >= this.blockMs) {
      this.recoveredAt = now;
      const recovered = (await poll(inflight)) ?? [];
      if (recovered.length) return recovered;
    }
    return (await poll(queue, this.blockMs)) ?? [];
  }
}
