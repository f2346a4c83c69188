// A DELAY queue worker: at-least-once delivery with leases. The loop
// the job-queue guide (docs/guides/job-queue.md) describes, as tested
// code: block on the queue with DELAY.BPOLL, lease every claimed task
// into an in-flight set, run the handler, DELAY.ACK on success. A task whose handler fails, or whose worker
// dies, stays in the in-flight set until its lease ends; polling the
// in-flight set then delivers it again. With retryDelayMs a failed task goes
// back to its queue at once (DELAY.NACK), due after that delay; with
// deadLetter every poll counts deliveries and moves a task delivered too
// often to a dead-letter set; with renewLeases the worker extends the leases
// of the tasks it holds (DELAY.TOUCH) while their handlers run. On zkit's
// Functions library, which cannot block, delayBpoll polls with backoff
// instead (engine.ts): an idle worker asks every 250 ms at most.

import type { EventEmitter } from 'node:events';
import { Zkit, zkit } from './client';
import type { DeadLetter, Key } from './commands';
import type { Task } from './replies';

export interface DelayWorkerOptions {
  /** The queue: a sorted set of task ids scored by due time (unix ms). */
  queue: Key;
  /** Where claimed tasks wait for their ack; in the queue's hash slot on a cluster ('{jobs}', '{jobs}:inflight'). */
  inflight: Key;
  /** Runs one task; a rejection leaves the task to be delivered again when its lease ends (or after retryDelayMs). Must be idempotent. */
  handler: (task: Task) => Promise<void> | void;
  /** Hand a task whose handler rejected back to the queue with DELAY.NACK, due this many ms later, instead of leaving it until its lease ends. Default: leave it. */
  retryDelayMs?: number;
  /**
   * Dead letters: every poll counts deliveries in `deliveries`, and a task already delivered
   * `maxDeliveries` times moves to `dead` instead of being delivered again; acks remove counts.
   * Both keys in the queue's hash slot on a cluster ('{jobs}:dead', '{jobs}:deliveries').
   */
  deadLetter?: DeadLetter;
  /** Longer than any handler runs (unless renewLeases): a task whose lease ends is delivered again, and its first worker then does not ack it. Default 60000. */
  leaseMs?: number;
  /**
   * Every third of leaseMs, extend the lease of every task of the batch not yet finished (DELAY.TOUCH),
   * so a handler may run longer than leaseMs while a dead worker's tasks still come back within leaseMs.
   * A task found no longer in flight is told to onError and not acked. Handlers must not block the event loop. Default false.
   */
  renewLeases?: boolean;
  /** Tasks claimed per poll. Default 10. */
  count?: number;
  /** How long one DELAY.BPOLL waits, and so how soon stop() takes effect. Default 1000. */
  blockMs?: number;
  /** Pause after a failed poll (a dropped connection) before polling again. Default 500. */
  reconnectDelayMs?: number;
  /** Told of failed polls, handlers, acks and retries. Default: console.error. */
  onError?: (error: unknown, task?: Task) => void;
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
  private readonly blockMs: number;
  private readonly reconnectDelayMs: number;
  private readonly onError: (error: unknown, task?: Task) => void;
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
    this.blockMs = options.blockMs ?? 1_000;
    this.reconnectDelayMs = options.reconnectDelayMs ?? 500;
    this.onError = options.onError ?? ((error) => console.error('zkit worker:', error));
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
    const claimedAt = Date.now();
    let tasks: Task[];
    try {
      tasks = await this.claim(claimedAt);
    } catch (error) {
      this.onError(error);
      await new Promise((resolve) => setTimeout(resolve, this.reconnectDelayMs));
      return 0;
    }
    // When the lease of each task not yet finished ends, as far as this worker knows.
    const leases = new Map(tasks.map((task) => [task, claimedAt + this.leaseMs]));
    const renewing = this.options.renewLeases && tasks.length ? setInterval(() => void this.renew(leases), this.leaseMs / 3) : undefined;
    let acked = 0;
    try {
      for (const task of tasks) {
        let failed = false;
        try {
          await this.options.handler(task);
        } catch (error) {
          this.onError(error, task);
          failed = true;
        }
        const leaseEnds = leases.get(task) ?? -Infinity; // absent: a renewal found the lease gone
        leases.delete(task);
        if (failed && this.options.retryDelayMs === undefined) continue;
        // Past its lease another worker may hold the task; acking (or handing
        // it back) would end that worker's lease.
        if (Date.now() >= leaseEnds) {
          this.onError(new Error(`task ${task.task.toString()} outran its lease; not ${failed ? 'handed back' : 'acked'}`), task);
          continue;
        }
        const { queue, inflight, retryDelayMs = 0, deadLetter } = this.options;
        try {
          if (failed) await this.zkit.delayNack(inflight, queue, task.task, retryDelayMs);
          else acked += await this.zkit.delayAck(inflight, task.task, { deliveries: deadLetter?.deliveries });
        } catch (error) {
          this.onError(error, task);
        }
      }
    } finally {
      clearInterval(renewing);
    }
    return acked;
  }

  /** Extends the leases in `leases`; drops a task whose lease is gone, so it is not acked. */
  private async renew(leases: Map<Task, number>): Promise<void> {
    for (const task of [...leases.keys()]) {
      const sentAt = Date.now();
      try {
        const held = await this.zkit.delayTouch(this.options.inflight, task.task, this.leaseMs);
        if (!leases.has(task)) continue; // finished meanwhile
        if (held) {
          leases.set(task, sentAt + this.leaseMs);
        } else {
          leases.delete(task);
          this.onError(new Error(`task ${task.task.toString()} lost its lease; it will be delivered again`), task);
        }
      } catch (error) {
        this.onError(error, task);
      }
    }
  }

  private async claim(now: number): Promise<Task[]> {
    const poll = { count: this.count, lease: { key: this.options.inflight, ms: this.leaseMs }, deadLetter: this.options.deadLetter };
    // Expired leases first, at most once per blockMs: a busy queue must not
    // starve the tasks of a dead worker.
    if (now - this.recoveredAt >= this.blockMs) {
      this.recoveredAt = now;
      const recovered = await this.zkit.delayPoll(this.options.inflight, poll);
      if (recovered.length) return recovered;
    }
    return (await this.zkit.delayBpoll(this.options.queue, this.blockMs, poll)) ?? [];
  }
}
