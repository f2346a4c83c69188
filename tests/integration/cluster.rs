//! Redis Cluster: every registered family (tests/integration/common/workload.rs) through a
//! cluster-aware client on a 3-master cluster with zkit on every node. Slow
//! (a cluster per test): `make test-all` runs these.

use crate::common::client::{err, error_text, ok, query, run, words};
use crate::common::cluster::{begin_migration, migrate_keys, Cluster};
use crate::common::data::{db_snapshot, DbContents};
use crate::common::facts::{example_keys, examples};
use crate::common::workload::{named_keys, Rng, FAMILIES};
use redis::Value;

/// Snapshots of every node, to prove a refused call changed nothing.
fn snapshots(cluster: &Cluster) -> Vec<DbContents> {
    cluster
        .nodes
        .iter()
        .map(|n| db_snapshot(&mut n.connect()))
        .collect()
}

#[test]
#[ignore = "slow: make test-all"]
fn every_family_runs_through_a_cluster_client_with_hash_tags() {
    let mut rng = Rng::seeded("cluster routing");
    let cluster = Cluster::start(3);
    let mut client = cluster.client();
    let tags: Vec<String> = (0..8).map(|i| format!("{{board{i}}}")).collect();
    for family in FAMILIES {
        for tag in &tags {
            // Keys sharing a hash tag share a slot: multi-key calls succeed.
            let keys = family.keys(tag, 3);
            for _ in 0..15 {
                let call = family.any_call(&mut rng, &keys);
                if let Err(e) = run(&mut client, &words(&call)) {
                    panic!("{call:?} through the cluster client: {}", error_text(&e));
                }
            }
        }
    }
    // Every key lives on the node that serves its slot, and the tags spread
    // the keys over more than one node.
    let mut used_nodes = 0;
    for node in &cluster.nodes {
        let keys: Vec<String> = query(&mut node.connect(), &["KEYS", "*"]);
        for key in &keys {
            let owner = cluster.owner(cluster.slot(key));
            assert_eq!(owner.port, node.port, "{key} is on the wrong node");
        }
        used_nodes += usize::from(!keys.is_empty());
    }
    assert!(used_nodes > 1, "all keys landed on one node");
}

#[test]
#[ignore = "slow: make test-all"]
fn multi_key_calls_across_slots_fail_with_crossslot_and_change_nothing() {
    let mut rng = Rng::seeded("cluster crossslot");
    let cluster = Cluster::start(3);
    let mut client = cluster.client();
    let mut crossslot = 0;
    for family in FAMILIES {
        // Keys of three tags: a call's keys may or may not share a slot.
        let keys: Vec<String> = ["{a}", "{b}", "{c}"]
            .iter()
            .flat_map(|tag| family.keys(tag, 2))
            .collect();
        for _ in 0..200 {
            let call = family.any_call(&mut rng, &keys);
            // The keys the call names (tests/integration/production.rs checks that the
            // key specs find exactly these).
            let mut slots: Vec<u16> = named_keys(&call, &keys)
                .into_iter()
                .map(|k| cluster.slot(k))
                .collect();
            slots.sort();
            slots.dedup();
            let before = snapshots(&cluster);
            match run(&mut client, &words(&call)) {
                Ok(_) => assert_eq!(slots.len(), 1, "{call:?} spans slots {slots:?}"),
                Err(e) => {
                    let e = error_text(&e);
                    assert!(
                        slots.len() > 1 && e.starts_with("CROSSSLOT"),
                        "{call:?}: {e}"
                    );
                    assert!(snapshots(&cluster) == before, "{call:?} changed data");
                    crossslot += 1;
                }
            }
        }
    }
    assert!(crossslot > 0, "no multi-key call spanned slots");
}

/// Every declaration's example runs through a cluster client (its keys
/// share the tag `{t}`, so one slot); with each of its keys under a tag of
/// its own, a call whose keys fall in two slots is refused with CROSSSLOT
/// and changes nothing. A command that takes several keys is checked here
/// from the day it is declared.
#[test]
#[ignore = "slow: make test-all"]
fn every_declared_example_runs_on_a_cluster_and_keys_of_two_slots_are_refused() {
    let cluster = Cluster::start(3);
    let mut client = cluster.client();
    let mut spanned = 0;
    for (command, call) in examples() {
        ok(&mut client, &words(&call));
        let mut keys = example_keys(&call);
        keys.sort();
        keys.dedup();
        if !call[0].eq_ignore_ascii_case(&command) || keys.len() < 2 {
            continue; // a native command that sets up the next, or one key
        }
        let spread: Vec<String> = call
            .iter()
            .map(|word| match keys.iter().position(|key| key == word) {
                Some(i) => word.replace("{t}", &format!("{{t{i}}}")),
                None => word.clone(),
            })
            .collect();
        let mut slots: Vec<u16> = (0..call.len())
            .filter(|&i| call[i].contains("{t}"))
            .map(|i| cluster.slot(&spread[i]))
            .collect();
        slots.sort();
        slots.dedup();
        if slots.len() < 2 {
            continue;
        }
        let before = snapshots(&cluster);
        let e = err(&mut client, &words(&spread));
        assert!(e.starts_with("CROSSSLOT"), "{spread:?}: {e}");
        assert!(snapshots(&cluster) == before, "{spread:?} changed data");
        spanned += 1;
    }
    assert!(spanned >= 10, "only {spanned} examples spanned slots");
}

#[test]
#[ignore = "slow: make test-all"]
fn moved_and_ask_redirects_are_followed_while_a_slot_migrates() {
    let mut rng = Rng::seeded("cluster redirects");
    let cluster = Cluster::start(3);
    let mut client = cluster.client();
    for family in FAMILIES {
        let tag = format!("{{moving-{}}}", family.name);
        let keys = family.keys(&tag, 3);
        let slot = cluster.slot(&keys[0]);
        let source = cluster.owner(slot);
        let target = cluster.other_than(source);
        // Writes until every key of the family exists (some writes delete
        // keys: a poll that empties its queue), so that later any write's
        // keys have all moved once the slot's keys have.
        let mut writes = 0;
        while writes < 20
            || !keys
                .iter()
                .all(|k| query::<i64>(&mut client, &["EXISTS", k]) == 1)
        {
            ok(&mut client, &words(&(family.write)(&mut rng, &keys)));
            writes += 1;
            assert!(
                writes < 5_000,
                "{} never had all its keys at once",
                family.name
            );
        }

        // A node that does not serve the slot redirects, and changes nothing.
        let mut wrong = target.connect();
        let before = db_snapshot(&mut wrong);
        for _ in 0..10 {
            let call = family.any_call(&mut rng, &keys);
            let e = err(&mut wrong, &words(&call));
            assert_eq!(
                e,
                format!("MOVED {slot} 127.0.0.1:{}", source.port),
                "{call:?}"
            );
        }
        assert!(db_snapshot(&mut wrong) == before);

        // Migrate the slot as redis-cli --cluster reshard does.
        begin_migration(slot, source, target);
        let target_id = target.cluster_entry().id;
        let mut src = source.connect();
        let mut dst = target.connect();
        let slot_text = slot.to_string();
        let expected = db_snapshot(&mut src);
        let mut moved: Vec<String> =
            query(&mut src, &["CLUSTER", "GETKEYSINSLOT", &slot_text, "1000"]);
        moved.sort();
        assert!(!moved.is_empty());
        // Half-way: a call whose keys are already moved is sent on with ASK,
        // which the client follows. (Every key of the call must have moved:
        // for several keys Redis answers TRYAGAIN while some are missing.)
        let call = (0..1000)
            .map(|_| (family.write)(&mut rng, &keys))
            .find(|call| {
                named_keys(call, &keys)
                    .into_iter()
                    .all(|k| moved.contains(k))
            })
            .expect("a write whose keys all exist");
        let (call_keys, rest): (Vec<String>, Vec<String>) =
            moved.iter().cloned().partition(|k| call.contains(k));
        migrate_keys(&mut src, target, &call_keys);
        let e = err(&mut src, &words(&call));
        assert_eq!(
            e,
            format!("ASK {slot} 127.0.0.1:{}", target.port),
            "{call:?}"
        );
        let mut after_ask = expected.clone();
        ok(&mut client, &words(&call));
        migrate_keys(&mut src, target, &rest);
        for node in &cluster.nodes {
            ok(
                &mut node.connect(),
                &["CLUSTER", "SETSLOT", &slot_text, "NODE", &target_id],
            );
        }
        // The moved keys arrived intact (but the ones the ASK call wrote).
        let arrived = db_snapshot(&mut dst);
        after_ask.retain(|(k, _)| !call_keys.contains(k));
        let mut arrived_untouched = arrived.clone();
        arrived_untouched.retain(|(k, _)| !call_keys.contains(k));
        let expected_moved: DbContents = after_ask
            .into_iter()
            .filter(|(k, _)| moved.contains(k))
            .collect();
        let arrived_moved: DbContents = arrived_untouched
            .into_iter()
            .filter(|(k, _)| moved.contains(k))
            .collect();
        assert!(arrived_moved == expected_moved, "migration changed data");
        // The slot is the target's now. (Counted here: the random calls
        // below may empty every key of the slot, a queue claimed away.)
        let count: i64 = query(&mut dst, &["CLUSTER", "COUNTKEYSINSLOT", &slot_text]);
        assert!(count > 0);

        // The client's slot map is stale now: MOVED makes it refresh.
        for _ in 0..20 {
            let call = family.any_call(&mut rng, &keys);
            if let Err(e) = run(&mut client, &words(&call)) {
                panic!("{call:?} after the migration: {}", error_text(&e));
            }
        }
        let left: Vec<String> = query(&mut src, &["KEYS", &format!("*{tag}*")]);
        assert!(left.is_empty(), "{left:?} stayed on the old node");
    }
}

/// The stats commands on a cluster: a queue and its sets in one slot
/// (hash tags) answer through a cluster client, from the node that holds
/// them; sets named in other slots are refused with CROSSSLOT, as the
/// commands that fill them are.
#[test]
#[ignore = "slow: make test-all"]
fn stats_commands_answer_for_keys_of_one_slot() {
    let cluster = Cluster::start(3);
    let mut client = cluster.client();
    let mut nodes_used = std::collections::HashSet::new();
    for tag in ["{jobs}", "{mail}", "{report}", "{image}"] {
        let [queue, inflight, dead, deliveries] =
            ["", ":inflight", ":dead", ":deliveries"].map(|suffix| format!("{tag}{suffix}"));
        nodes_used.insert(cluster.owner(cluster.slot(&queue)).port);
        ok(&mut client, &["ZADD", &queue, "1", "a", "2", "b"]);
        ok(
            &mut client,
            &[
                "DELAY.POLL",
                &queue,
                "LEASE",
                &inflight,
                "60000",
                "DEADLETTER",
                &dead,
                &deliveries,
                "3",
            ],
        );
        let reply: Vec<Value> = query(
            &mut client,
            &[
                "DELAY.STATS",
                &queue,
                "INFLIGHT",
                &inflight,
                "DEAD",
                &dead,
                "DELIVERIES",
                &deliveries,
            ],
        );
        let counts: Vec<Value> = reply.into_iter().skip(1).step_by(2).collect();
        // tasks, due, inflight, expired, dead, redelivered.
        let pick =
            |i: usize| -> Option<i64> { redis::from_redis_value(counts[i].clone()).unwrap() };
        assert_eq!(
            [pick(1), pick(2), pick(5), pick(6), pick(7), pick(8)],
            [Some(1), Some(1), Some(1), Some(0), Some(0), Some(0)],
            "{tag}"
        );
        let board = format!("{tag}:board");
        ok(&mut client, &["RANK.GIFT", &board, "alice", "3"]);
        let stats: Vec<Value> = query(&mut client, &["RANK.STATS", &board]);
        assert_eq!(stats[1], Value::Int(1), "{tag}");
        let log = format!("{tag}:hits");
        ok(&mut client, &["RATE.HIT", &log, "60000", "5"]);
        let stats: Vec<Value> = query(&mut client, &["RATE.STATS", &log, "WINDOWS", "60000"]);
        assert_eq!(stats[1], Value::Int(1), "{tag}");
    }
    assert!(nodes_used.len() > 1, "the tags landed on one node");
    let e = err(
        &mut client,
        &["DELAY.STATS", "{jobs}", "INFLIGHT", "{mail}:inflight"],
    );
    assert!(e.starts_with("CROSSSLOT"), "{e}");
}
