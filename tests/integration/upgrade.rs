//! Rolling install (docs/operating.md, "Rolling install on a replicated
//! pair"): a master and a replica running without zkit get it at runtime,
//! replica first, then a FAILOVER, then the old master, while a workload
//! keeps writing to whichever node is master. Both end with identical data.

use std::sync::atomic::{AtomicBool, AtomicU16, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::common::client::{error_text, ok, query, run, words};
use crate::common::replication::{assert_replicas_match, role};
use crate::common::workload::{Rng, FAMILIES};
use crate::common::{module_path, wait_for, Server, ServerConfig};
use redis::{Connection, Value};

/// What the workload thread and the test share.
struct Workload {
    /// The port the workload writes to.
    master_port: AtomicU16,
    /// Whether that master has zkit: until then, native writes only.
    zkit_on_master: AtomicBool,
    stop: AtomicBool,
    native_writes: AtomicUsize,
    zkit_calls: AtomicUsize,
    /// Successful zkit calls by family, in the order of `FAMILIES`.
    zkit_calls_by_family: Vec<AtomicUsize>,
}

impl Default for Workload {
    fn default() -> Workload {
        Workload {
            master_port: AtomicU16::default(),
            zkit_on_master: AtomicBool::default(),
            stop: AtomicBool::default(),
            native_writes: AtomicUsize::default(),
            zkit_calls: AtomicUsize::default(),
            zkit_calls_by_family: FAMILIES.iter().map(|_| AtomicUsize::default()).collect(),
        }
    }
}

/// A native write on keys no zkit family touches.
fn native_write(rng: &mut Rng) -> Vec<String> {
    let n = rng.below(8).to_string();
    match rng.below(3) {
        0 => vec![
            "ZADD".into(),
            format!("native:z:{n}"),
            rng.range(0, 1000).to_string(),
            format!("m{}", rng.below(50)),
        ],
        1 => vec![
            "SADD".into(),
            format!("native:s:{n}"),
            format!("m{}", rng.below(50)),
        ],
        _ => vec!["HINCRBY".into(), "native:h".into(), n, "1".into()],
    }
}

/// Writes to `shared.master_port` until told to stop: zkit calls of every
/// family (and native writes) once the master has zkit. A write refused with
/// READONLY, or cut off, during the failover is retried on the master the
/// test names next; any other error fails the test.
fn run_workload(shared: Arc<Workload>) {
    let mut rng = Rng::seeded("rolling install workload");
    let keys: Vec<Vec<String>> = FAMILIES.iter().map(|f| f.keys("", 4)).collect();
    let mut con: Option<(u16, Connection)> = None;
    while !shared.stop.load(Ordering::SeqCst) {
        // The flag first: the test names the new master before it says the
        // master has zkit, so a zkit call never goes to the old one.
        let zkit_on_master = shared.zkit_on_master.load(Ordering::SeqCst);
        let port = shared.master_port.load(Ordering::SeqCst);
        if con.as_ref().map(|(p, _)| *p) != Some(port) {
            let client = redis::Client::open(format!("redis://127.0.0.1:{port}/")).unwrap();
            let c = client.get_connection().expect("connect to the master");
            c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            con = Some((port, c));
        }
        let family =
            (zkit_on_master && rng.chance(80)).then(|| rng.below(FAMILIES.len() as u64) as usize);
        let call = match family {
            Some(i) => (FAMILIES[i].write)(&mut rng, &keys[i]),
            None => native_write(&mut rng),
        };
        let (_, c) = con.as_mut().unwrap();
        match run(c, &words(&call)) {
            Ok(_) => match family {
                Some(i) => {
                    shared.zkit_calls_by_family[i].fetch_add(1, Ordering::SeqCst);
                    shared.zkit_calls.fetch_add(1, Ordering::SeqCst)
                }
                None => shared.native_writes.fetch_add(1, Ordering::SeqCst),
            },
            Err(e) if e.code() == Some("READONLY") || e.is_io_error() => {
                con = None;
                std::thread::sleep(Duration::from_millis(10));
                0
            }
            Err(e) => panic!("{call:?} failed: {}", error_text(&e)),
        };
    }
}

/// Waits until the workload has made `n` more calls of a kind.
fn wait_for_more(counter: &AtomicUsize, n: usize) {
    let target = counter.load(Ordering::SeqCst) + n;
    wait_for(Duration::from_secs(60), || {
        counter.load(Ordering::SeqCst) >= target
    });
}

fn has_zkit(server: &Server) -> bool {
    let modules: Vec<std::collections::HashMap<String, Value>> =
        query(&mut server.connect(), &["MODULE", "LIST"]);
    modules
        .iter()
        .any(|m| m["name"] == Value::BulkString(b"zkit".to_vec()))
}

#[test]
fn rolling_install_replica_first_then_failover_then_old_master() {
    // 1. Both nodes run without zkit; MODULE LOAD must be allowed.
    let plain = ServerConfig::without_module()
        .arg("enable-module-command", "yes")
        .arg("repl-diskless-sync-delay", "0");
    let old_master = Server::with(plain.clone());
    let replica = Server::with(plain.replica_of(&old_master));
    replica.wait_until_synced();
    let shared = Arc::new(Workload::default());
    shared.master_port.store(old_master.port, Ordering::SeqCst);
    let workload = std::thread::spawn({
        let shared = shared.clone();
        move || run_workload(shared)
    });
    wait_for_more(&shared.native_writes, 200);

    // 2. Load zkit on the replica. The master still has none: native writes.
    let module = module_path().to_string_lossy().into_owned();
    ok(&mut replica.connect(), &["MODULE", "LOAD", &module]);
    assert!(has_zkit(&replica));
    wait_for_more(&shared.native_writes, 200);

    // 3. FAILOVER: the replica becomes the master, the old master its replica.
    ok(&mut old_master.connect(), &["FAILOVER"]);
    wait_for(Duration::from_secs(30), || {
        role(&replica) == "master" && role(&old_master) == "slave"
    });
    old_master.wait_until_synced();
    shared.master_port.store(replica.port, Ordering::SeqCst);
    shared.zkit_on_master.store(true, Ordering::SeqCst);
    wait_for_more(&shared.zkit_calls, 300);

    // 4. Load zkit on the old master, now a replica.
    ok(&mut old_master.connect(), &["MODULE", "LOAD", &module]);
    assert!(has_zkit(&old_master));
    wait_for_more(&shared.zkit_calls, 300);

    shared.stop.store(true, Ordering::SeqCst);
    workload.join().expect("the workload failed");
    // Identical keys, values and expiry times on both nodes.
    // Every family wrote through zkit (a family's keys may be gone by now:
    // DELAY drains its queues).
    for (family, calls) in FAMILIES.iter().zip(&shared.zkit_calls_by_family) {
        assert!(
            calls.load(Ordering::SeqCst) > 0,
            "no {} call succeeded",
            family.name
        );
    }
    let data = assert_replicas_match(&replica, std::slice::from_ref(&old_master));
    assert!(
        data.iter()
            .any(|(key, _)| FAMILIES.iter().any(|f| key.contains(f.name))),
        "no zkit key to compare"
    );
}
