//! A DELAY queue worker: at-least-once delivery with leases, the loop the
//! job-queue guide describes. Each handler thread blocks on the queue with
//! DELAY.BPOLL, leases what it claims into the in-flight set, runs the
//! handler, and acks with the delivery's token. A task whose handler fails,
//! or whose worker dies, stays in the in-flight set until its lease ends;
//! polling the in-flight set then delivers it again. Every ack, hand-back and
//! renewal sends the delivery's token, so once another worker has claimed a
//! task whose lease ended, the first worker's late calls change nothing.

use std::collections::HashMap;
use std::error::Error;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use redis::{RedisError, RedisResult};

use crate::{
    DelayAckOptions, DelayBpollOptions, DelayNackOptions, DelayPollOptions, Job, Task, Transport,
    Zkit,
};

/// A failed job's reason is its error's text, cut to this many characters.
pub const REASON_MAX_CHARS: usize = 1000;

/// What a handler returns: any error fails the task.
pub type HandlerResult = Result<(), Box<dyn Error + Send + Sync>>;

/// What DELAY.NACK records as a job's last failure reason: the error's text,
/// at most [`REASON_MAX_CHARS`] characters (a longer one ends in `...`).
pub fn failure_reason(error: &dyn Error) -> String {
    let text = error.to_string();
    if text.chars().count() <= REASON_MAX_CHARS {
        return text;
    }
    let mut cut: String = text.chars().take(REASON_MAX_CHARS - 3).collect();
    cut.push_str("...");
    cut
}

/// What a worker tells its `on_error`: none of these stops it.
#[derive(Debug)]
pub enum WorkerError {
    /// A poll failed (a dropped connection): the thread reconnects and polls
    /// again after `reconnect_delay`.
    Poll(RedisError),
    /// The handler failed on `task`.
    Handler {
        task: String,
        error: Box<dyn Error + Send + Sync>,
    },
    /// An ack, hand-back or renewal of `task` failed on the connection; a task
    /// not acked runs again when its lease ends.
    Call { task: String, error: RedisError },
    /// The handler of `task` outran its lease and another worker claimed the
    /// task: not acked (that worker's delivery stays as it is).
    NotAcked { task: String },
    /// The handler of `task` failed after its lease ended: not handed back,
    /// it runs again when delivered again.
    NotHandedBack { task: String },
    /// A renewal found the lease of `task` gone (it ended, or another worker
    /// claimed the task): the handler's result is neither acked nor handed back.
    LostLease { task: String },
}

impl WorkerError {
    /// The task it is about, if any.
    pub fn task(&self) -> Option<&str> {
        match self {
            WorkerError::Poll(_) => None,
            WorkerError::Handler { task, .. }
            | WorkerError::Call { task, .. }
            | WorkerError::NotAcked { task }
            | WorkerError::NotHandedBack { task }
            | WorkerError::LostLease { task } => Some(task),
        }
    }
}

impl fmt::Display for WorkerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkerError::Poll(error) => write!(f, "polling failed ({error}); polling again"),
            WorkerError::Handler { task, error } => write!(f, "task {task} failed: {error}"),
            WorkerError::Call { task, error } => write!(f, "task {task}: {error}"),
            WorkerError::NotAcked { task } => write!(
                f,
                "task {task} outran its lease and another worker claimed it; not acked"
            ),
            WorkerError::NotHandedBack { task } => write!(
                f,
                "task {task} outran its lease; not handed back, it runs again when delivered again"
            ),
            WorkerError::LostLease { task } => write!(
                f,
                "task {task} lost its lease (it ended, or another worker claimed it); not acked"
            ),
        }
    }
}

impl Error for WorkerError {}

/// The settings of a [`DelayWorker`]: `DelayWorkerOptions::new(queue, inflight)`,
/// then the fields to change.
#[derive(Debug, Clone)]
pub struct DelayWorkerOptions {
    /// The queue: a sorted set of task ids scored by due time (unix ms).
    pub queue: String,
    /// Where claimed tasks wait for their ack; in the queue's hash slot on a
    /// cluster (`{jobs}`, `{jobs}:inflight`).
    pub inflight: String,
    /// Longer than any handler runs (unless `renew_leases`): a task whose
    /// lease ends is delivered again when a worker next polls the in-flight
    /// set. Default 60,000.
    pub lease_ms: i64,
    /// Tasks claimed per poll, per handler thread. Default 10.
    pub count: i64,
    /// How long one DELAY.BPOLL waits, and so how soon a stop takes effect.
    /// Default 1,000.
    pub block_ms: i64,
    /// Handler threads, each with a connection of its own. Default 1.
    pub concurrency: usize,
    /// Pause after a failed poll before reconnecting. Default 500 ms.
    pub reconnect_delay: Duration,
    /// Hand a task whose handler failed back to the queue (DELAY.NACK), due
    /// this many ms later, instead of leaving it until its lease ends. A job
    /// worker always hands a failed job back, by default `lease_ms` later.
    pub retry_delay_ms: Option<i64>,
    /// `(dead, deliveries, max_deliveries)`: every poll counts deliveries in
    /// `deliveries`, and a task already delivered `max_deliveries` times moves
    /// to `dead` instead; acks remove counts. In the queue's hash slot.
    pub deadletter: Option<(String, String, i64)>,
    /// Every third of `lease_ms`, extend the lease of every task of the batch
    /// not yet finished (DELAY.TOUCH with its token, keeping the new one), so
    /// a handler may run longer than `lease_ms` while a dead worker's tasks
    /// still come back within `lease_ms`. Default false.
    pub renew_leases: bool,
    /// A job worker's holder, as DELAY.JOB shows it. Default host:pid.
    pub name: Option<String>,
}

impl DelayWorkerOptions {
    pub fn new(queue: impl Into<String>, inflight: impl Into<String>) -> Self {
        DelayWorkerOptions {
            queue: queue.into(),
            inflight: inflight.into(),
            lease_ms: 60_000,
            count: 10,
            block_ms: 1_000,
            concurrency: 1,
            reconnect_delay: Duration::from_millis(500),
            retry_delay_ms: None,
            deadletter: None,
            renew_leases: false,
            name: None,
        }
    }
}

/// What a worker delivers to its handler: a [`Task`] (claimed with
/// WITHTOKENS) or a [`Job`] (claimed with DATA and WITHDATA).
pub trait Delivery: Send + Sync + Sized {
    /// The task's id.
    fn id(&self) -> &str;
    /// The delivery's token.
    fn token(&self) -> Option<i64>;
    #[doc(hidden)]
    fn poll<C: Transport>(
        z: &mut Zkit<C>,
        key: &str,
        block_ms: Option<i64>,
        options: DelayPollOptions<'_>,
    ) -> RedisResult<Vec<Self>>;
}

impl Delivery for Task {
    fn id(&self) -> &str {
        &self.task
    }

    fn token(&self) -> Option<i64> {
        self.token
    }

    fn poll<C: Transport>(
        z: &mut Zkit<C>,
        key: &str,
        block_ms: Option<i64>,
        options: DelayPollOptions<'_>,
    ) -> RedisResult<Vec<Self>> {
        let options = DelayPollOptions {
            withtokens: true,
            ..options
        };
        match block_ms {
            None => z.delay_poll(key, options),
            Some(ms) => Ok(z
                .delay_bpoll(key, ms, blocking(options))?
                .unwrap_or_default()),
        }
    }
}

impl Delivery for Job {
    fn id(&self) -> &str {
        &self.task
    }

    fn token(&self) -> Option<i64> {
        self.token
    }

    fn poll<C: Transport>(
        z: &mut Zkit<C>,
        key: &str,
        block_ms: Option<i64>,
        options: DelayPollOptions<'_>,
    ) -> RedisResult<Vec<Self>> {
        match block_ms {
            None => z.delay_poll_withdata(key, options),
            Some(ms) => Ok(z
                .delay_bpoll_withdata(key, ms, blocking(options))?
                .unwrap_or_default()),
        }
    }
}

fn blocking(options: DelayPollOptions<'_>) -> DelayBpollOptions<'_> {
    DelayBpollOptions {
        count: options.count,
        lease: options.lease,
        deadletter: options.deadletter,
        withtokens: options.withtokens,
        data: options.data,
        worker: options.worker,
        lanes: options.lanes,
    }
}

/// Asks a running [`DelayWorker`] to stop: each thread finishes the tasks it
/// holds and polls no more, within `block_ms`.
#[derive(Debug, Clone, Default)]
pub struct Stopper(Arc<AtomicBool>);

impl Stopper {
    pub fn stop(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_stopped(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

type OnError = Box<dyn Fn(&WorkerError) + Send + Sync>;

/// Runs a handler for the tasks of a DELAY queue, at least once each, on
/// `concurrency` threads. `connect` opens each thread's connection (and each
/// renewal's), again after a dropped one: DELAY.BPOLL holds a connection
/// while it waits. Handlers must be idempotent.
///
/// ```no_run
/// use zkit::{DelayWorker, DelayWorkerOptions, Task, Zkit};
///
/// # fn main() -> redis::RedisResult<()> {
/// let client = redis::Client::open("redis://127.0.0.1:6379")?;
/// let options = DelayWorkerOptions::new("{jobs}", "{jobs}:inflight");
/// let worker = DelayWorker::new(
///     move || Ok(Zkit::new(client.get_connection()?)),
///     options,
///     |task: &Task| {
///         println!("running {}", task.task);
///         Ok(())
///     },
/// );
/// let stopper = worker.stopper(); // stopper.stop() from elsewhere
/// worker.run();
/// # Ok(())
/// # }
/// ```
pub struct DelayWorker<D, H, F> {
    options: DelayWorkerOptions,
    data: Option<String>,
    name: String,
    handler: H,
    connect: F,
    on_error: OnError,
    stopper: Stopper,
    _delivery: std::marker::PhantomData<fn(&D)>,
}

impl<H, F, C> DelayWorker<Task, H, F>
where
    H: Fn(&Task) -> HandlerResult + Sync,
    F: Fn() -> RedisResult<Zkit<C>> + Sync,
    C: Transport,
{
    /// A worker of plain tasks: the handler is handed each [`Task`].
    pub fn new(connect: F, options: DelayWorkerOptions, handler: H) -> Self {
        DelayWorker::build(connect, options, None, handler)
    }
}

impl<H, F, C> DelayWorker<Job, H, F>
where
    H: Fn(&Job) -> HandlerResult + Sync,
    F: Fn() -> RedisResult<Zkit<C>> + Sync,
    C: Transport,
{
    /// A worker of jobs, the queue's job data in `data` (`{jobs}:data`, in
    /// the queue's slot): it polls with DATA, WITHDATA and WORKER, so a
    /// paused queue delivers nothing and DELAY.JOB shows the holder; the
    /// handler is handed each [`Job`] (payload and deliveries); a failed job
    /// is handed back with its error's text as its reason
    /// ([`failure_reason`]), due `retry_delay_ms` later (default `lease_ms`);
    /// an ack removes the job's data.
    pub fn jobs(
        connect: F,
        options: DelayWorkerOptions,
        data: impl Into<String>,
        handler: H,
    ) -> Self {
        DelayWorker::build(connect, options, Some(data.into()), handler)
    }
}

impl<D, H, F, C> DelayWorker<D, H, F>
where
    D: Delivery,
    H: Fn(&D) -> HandlerResult + Sync,
    F: Fn() -> RedisResult<Zkit<C>> + Sync,
    C: Transport,
{
    fn build(connect: F, options: DelayWorkerOptions, data: Option<String>, handler: H) -> Self {
        let name = options.name.clone().unwrap_or_else(default_name);
        DelayWorker {
            options,
            data,
            name,
            handler,
            connect,
            on_error: Box::new(|error| eprintln!("zkit worker: {error}")),
            stopper: Stopper::default(),
            _delivery: std::marker::PhantomData,
        }
    }

    /// Tells `on_error` of failed polls, handlers, acks, hand-backs and
    /// renewals, in place of printing them to stderr.
    pub fn on_error(mut self, on_error: impl Fn(&WorkerError) + Send + Sync + 'static) -> Self {
        self.on_error = Box::new(on_error);
        self
    }

    /// What stops [`DelayWorker::run`], from any thread.
    pub fn stopper(&self) -> Stopper {
        self.stopper.clone()
    }

    /// Polls and handles tasks on `concurrency` threads until stopped;
    /// returns once every thread has finished what it holds.
    pub fn run(&self) {
        std::thread::scope(|scope| {
            for _ in 0..self.options.concurrency.max(1) {
                scope.spawn(|| {
                    let mut session = self.session();
                    while !self.stopper.is_stopped() {
                        session.run_once();
                    }
                });
            }
        });
    }

    /// One handler thread's state, to poll once at a time with
    /// [`Session::run_once`] on the calling thread.
    pub fn session(&self) -> Session<'_, D, H, F, C> {
        Session {
            worker: self,
            zkit: None,
            recovered_at: None,
        }
    }

    fn tell(&self, error: WorkerError) {
        (self.on_error)(&error);
    }

    fn poll_options(&self) -> DelayPollOptions<'_> {
        let o = &self.options;
        DelayPollOptions {
            count: Some(o.count),
            lease: Some((&o.inflight, o.lease_ms)),
            deadletter: o
                .deadletter
                .as_ref()
                .map(|(dead, deliveries, max)| (dead.as_str(), deliveries.as_str(), *max)),
            withtokens: false,
            data: self.data.as_deref(),
            worker: self.data.as_ref().map(|_| self.name.as_str()),
            lanes: None,
        }
    }
}

fn default_name() -> String {
    let host = std::env::var("HOSTNAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
        .map(|host| host.trim().to_string())
        .filter(|host| !host.is_empty())
        .unwrap_or_else(|| "localhost".to_string());
    format!("{host}:{}", std::process::id())
}

/// A lease the worker holds: its delivery's token (a renewal keeps the new
/// one), or `None` once a renewal found it gone.
type Leases = Mutex<HashMap<usize, Option<i64>>>;

/// One handler thread of a [`DelayWorker`]: its connection, opened on first
/// use and again after a dropped one.
pub struct Session<'w, D, H, F, C> {
    worker: &'w DelayWorker<D, H, F>,
    zkit: Option<Zkit<C>>,
    /// When the in-flight set was last polled for expired leases.
    recovered_at: Option<Instant>,
}

impl<D, H, F, C> Session<'_, D, H, F, C>
where
    D: Delivery,
    H: Fn(&D) -> HandlerResult + Sync,
    F: Fn() -> RedisResult<Zkit<C>> + Sync,
    C: Transport,
{
    /// Claims one batch (waiting up to `block_ms`), handles it, and returns
    /// how many tasks were acked.
    pub fn run_once(&mut self) -> usize {
        let w = self.worker;
        let deliveries = match self.claim() {
            Ok(deliveries) => deliveries,
            Err(error) => {
                self.zkit = None;
                w.tell(WorkerError::Poll(error));
                std::thread::sleep(w.options.reconnect_delay);
                return 0;
            }
        };
        if deliveries.is_empty() {
            return 0;
        }
        let leases: Leases = Mutex::new(
            deliveries
                .iter()
                .enumerate()
                .map(|(i, delivery)| (i, Some(delivery.token().unwrap_or(0))))
                .collect(),
        );
        std::thread::scope(|scope| {
            // Dropped when the batch is done, which ends the renewals.
            let (batch_done, renewer_told) = mpsc::channel::<()>();
            if w.options.renew_leases {
                let (leases, deliveries) = (&leases, &deliveries);
                scope.spawn(move || renew(w, deliveries, leases, renewer_told));
            }
            let mut acked = 0;
            for (i, delivery) in deliveries.iter().enumerate() {
                let result = (w.handler)(delivery);
                // Waits for a renewal under way, so the token sent is the latest.
                let lease = leases.lock().unwrap().remove(&i).flatten();
                match (lease, result) {
                    (Some(token), result) => acked += self.finish(delivery, token, result),
                    (None, Ok(())) => {}
                    (None, Err(error)) => w.tell(WorkerError::Handler {
                        task: delivery.id().to_string(),
                        error,
                    }),
                }
            }
            drop(batch_done);
            acked
        })
    }

    fn connection(&mut self) -> RedisResult<&mut Zkit<C>> {
        if self.zkit.is_none() {
            self.zkit = Some((self.worker.connect)()?);
        }
        Ok(self.zkit.as_mut().expect("connected above"))
    }

    fn claim(&mut self) -> RedisResult<Vec<D>> {
        let w = self.worker;
        let options = w.poll_options();
        let block_ms = w.options.block_ms;
        // Expired leases first, at most once per block_ms: a busy queue must
        // not starve the tasks of a dead worker.
        let now = Instant::now();
        let due = self.recovered_at.is_none_or(|at| {
            now.duration_since(at) >= Duration::from_millis(block_ms.max(0) as u64)
        });
        let z = self.connection()?;
        if due {
            let recovered = D::poll(z, &w.options.inflight, None, options)?;
            self.recovered_at = Some(now);
            if !recovered.is_empty() {
                return Ok(recovered);
            }
        }
        let z = self.connection()?;
        D::poll(z, &w.options.queue, Some(block_ms), options)
    }

    /// Acks `delivery` with its `token`, or hands it back after its handler
    /// failed; returns how many were acked.
    fn finish(&mut self, delivery: &D, token: i64, result: HandlerResult) -> usize {
        let w = self.worker;
        let o = &w.options;
        let task = delivery.id().to_string();
        let call = match result {
            Ok(()) => {
                let options = DelayAckOptions {
                    deliveries: o.deadletter.as_ref().map(|(_, d, _)| d.as_str()),
                    data: w.data.as_deref(),
                };
                self.connection().and_then(|z| {
                    z.delay_ack_leases(&o.inflight, &[(delivery.id(), token)], options)
                })
            }
            Err(error) => {
                let reason = w.data.as_ref().map(|_| failure_reason(error.as_ref()));
                w.tell(WorkerError::Handler {
                    task: task.clone(),
                    error,
                });
                let delay_ms = match (o.retry_delay_ms, &w.data) {
                    (Some(ms), _) => ms,
                    (None, Some(_)) => o.lease_ms,
                    (None, None) => return 0,
                };
                let options = DelayNackOptions {
                    data: w.data.as_deref(),
                    reason: reason.as_deref(),
                };
                let handed_back = self.connection().and_then(|z| {
                    z.delay_nack_token(
                        &o.inflight,
                        &o.queue,
                        delivery.id(),
                        delay_ms,
                        token,
                        options,
                    )
                });
                match handed_back {
                    Ok(true) => {}
                    Ok(false) => w.tell(WorkerError::NotHandedBack { task }),
                    Err(error) => self.failed_call(task, error),
                }
                return 0;
            }
        };
        match call {
            Ok(0) => {
                w.tell(WorkerError::NotAcked { task });
                0
            }
            Ok(acked) => acked as usize,
            Err(error) => {
                self.failed_call(task, error);
                0
            }
        }
    }

    fn failed_call(&mut self, task: String, error: RedisError) {
        if error.is_unrecoverable_error() {
            self.zkit = None;
        }
        self.worker.tell(WorkerError::Call { task, error });
    }
}

/// Every third of the lease until the batch is done, extends the lease of
/// each task of the batch still held, keeping its new token; drops a task
/// whose lease is gone. Holds `leases` while it renews, so a finished
/// handler's ack waits for the renewal under way.
fn renew<D, H, F, C>(
    w: &DelayWorker<D, H, F>,
    deliveries: &[D],
    leases: &Leases,
    batch_done: mpsc::Receiver<()>,
) where
    D: Delivery,
    H: Fn(&D) -> HandlerResult + Sync,
    F: Fn() -> RedisResult<Zkit<C>> + Sync,
    C: Transport,
{
    let o = &w.options;
    let period = Duration::from_millis((o.lease_ms / 3).max(1) as u64);
    let mut zkit: Option<Zkit<C>> = None;
    while let Err(RecvTimeoutError::Timeout) = batch_done.recv_timeout(period) {
        let mut held = leases.lock().unwrap();
        for (i, lease) in held.iter_mut() {
            let Some(token) = *lease else { continue };
            let task = deliveries[*i].id();
            let renewed = match &mut zkit {
                Some(z) => z.delay_touch_token(&o.inflight, task, o.lease_ms, token),
                None => (w.connect)().and_then(|z| {
                    zkit.insert(z)
                        .delay_touch_token(&o.inflight, task, o.lease_ms, token)
                }),
            };
            match renewed {
                Ok(0) => {
                    *lease = None;
                    w.tell(WorkerError::LostLease {
                        task: task.to_string(),
                    });
                }
                Ok(new_token) => *lease = Some(new_token),
                // Unknown whether the lease moved: the next renewal tells.
                Err(error) => {
                    if error.is_unrecoverable_error() {
                        zkit = None;
                    }
                    w.tell(WorkerError::Call {
                        task: task.to_string(),
                        error,
                    });
                }
            }
        }
    }
}
