//! Every zkit command through the Rust client, against the plain server and
//! the 3-master cluster scripts/test-clients.sh starts (ZKIT_TEST_SERVER,
//! ZKIT_TEST_CLUSTER: host:port, comma-separated for the cluster). Each test
//! works under a key prefix of its own and flushes nothing, so the suite
//! runs beside other data and its tests run in parallel.

use std::collections::BTreeSet;
use std::time::{SystemTime, UNIX_EPOCH};

use redis::cluster::{ClusterClient, ClusterConnection};
use redis::{Connection, ConnectionLike, ErrorKind, RedisResult};
use zkit::*;

const POSTED_AT: i64 = 1795313748; // unix s, for VOTE.CAST WINDOW

fn server_address() -> String {
    std::env::var("ZKIT_TEST_SERVER").expect(
        "ZKIT_TEST_SERVER (host:port) names the plain server; scripts/test-clients.sh sets it",
    )
}

fn cluster_addresses() -> Vec<String> {
    let nodes = std::env::var("ZKIT_TEST_CLUSTER").expect(
        "ZKIT_TEST_CLUSTER (host:port,...) names the cluster; scripts/test-clients.sh sets it",
    );
    nodes
        .split(',')
        .map(|node| format!("redis://{node}"))
        .collect()
}

/// `functions` (ZKIT_TEST_ENGINE) when the servers have zkit's Functions
/// library instead of the module: each client first loads it with
/// `load_functions`, as users do (a no-op once it is there).
fn library_engine() -> bool {
    std::env::var("ZKIT_TEST_ENGINE").is_ok_and(|engine| engine == "functions")
}

fn ready<C: Transport>(mut z: Zkit<C>) -> Zkit<C> {
    if library_engine() {
        z.load_functions(false).unwrap();
        assert_eq!(z.engine().unwrap(), Engine::Functions);
    }
    z
}

fn single() -> Zkit<Connection> {
    let client = redis::Client::open(format!("redis://{}", server_address())).unwrap();
    ready(Zkit::new(client.get_connection().unwrap()))
}

fn cluster() -> Zkit<ClusterConnection> {
    ready(Zkit::new(
        ClusterClient::new(cluster_addresses())
            .unwrap()
            .get_connection()
            .unwrap(),
    ))
}

/// One plain connection per cluster node.
fn nodes() -> Vec<Connection> {
    cluster_addresses()
        .iter()
        .map(|address| {
            redis::Client::open(address.as_str())
                .unwrap()
                .get_connection()
                .unwrap()
        })
        .collect()
}

/// A test's key namer: `k("{t}:mon")` is that key under the test's own
/// prefix (no braces in it, so the key's hash tag stays the one given).
fn keys_of(test: &str) -> impl Fn(&str) -> String {
    let run = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis();
    let prefix = format!("zkit-test-rust:{}-{run}:{test}:", std::process::id());
    move |name| format!("{prefix}{name}")
}

fn raw<T: redis::FromRedisValue>(connection: &mut impl ConnectionLike, args: &[&str]) -> T {
    let mut cmd = redis::cmd(args[0]);
    for arg in &args[1..] {
        cmd.arg(*arg);
    }
    cmd.query(connection).unwrap()
}

fn entry(rank: i64, member: &str, total: i64) -> RankEntry {
    RankEntry {
        rank,
        member: member.to_string(),
        total,
    }
}

fn task(task: &str, due_ms: f64) -> Task {
    Task {
        task: task.to_string(),
        due_ms,
    }
}

fn item(member: &str, score: f64) -> FeedItem {
    FeedItem {
        member: member.to_string(),
        score,
    }
}

/// One call or more of every command, checking each reply. Multi-key calls
/// share the tag {t}.
fn every_command<C: Transport + ConnectionLike>(
    z: &mut Zkit<C>,
    k: impl Fn(&str) -> String,
) -> RedisResult<()> {
    let (mon, week) = (k("{t}:mon"), k("{t}:week"));
    let none = RankGiftOptions::default();
    assert_eq!(
        z.rank_gift(
            &mon,
            "alice",
            100,
            RankGiftOptions {
                at: Some(1718000000000),
                ..none
            }
        )?,
        TotalRank {
            total: 100,
            rank: 1
        }
    );
    assert_eq!(
        z.rank_gift(&mon, "bob", 50, none)?,
        TotalRank { total: 50, rank: 2 }
    );
    // alice got there first
    let at = RankSetOptions {
        at: Some(1718000001000),
        ..Default::default()
    };
    assert_eq!(
        z.rank_set(&mon, "bob", 100, at)?,
        TotalRank {
            total: 100,
            rank: 2
        }
    );
    let info = Some(RankInfo {
        total: 100,
        rank: 2,
        reached_at_ms: 1718000001000,
    });
    assert_eq!(z.rank_get(&mon, "bob", RankGetOptions::default())?, info);
    assert_eq!(z.rank_get(&mon, "nobody", RankGetOptions::default())?, None);
    let top = vec![entry(1, "alice", 100), entry(2, "bob", 100)];
    assert_eq!(z.rank_top(&mon, 10, RankTopOptions::default())?, top);
    assert_eq!(
        z.rank_top(
            &mon,
            1,
            RankTopOptions {
                offset: Some(1),
                shared: false
            }
        )?,
        top[1..]
    );
    assert_eq!(
        z.rank_around(&mon, "bob", 1, RankAroundOptions::default())?,
        top
    );
    let weights = RankMergeOptions {
        weights: Some(&[1, 2]),
    };
    assert_eq!(z.rank_merge(&week, &[&mon, &mon], weights)?, 2);
    assert_eq!(
        z.rank_get(&week, "alice", RankGetOptions::default())?
            .unwrap()
            .total,
        300
    );
    // SHARED: dave reaches 100 third, at position 3 but sharing rank 1.
    assert_eq!(
        z.rank_gift(&mon, "carol", 99, none)?,
        TotalRank { total: 99, rank: 3 }
    );
    let shared_at = RankGiftOptions {
        at: Some(1718000002000),
        shared: true,
    };
    assert_eq!(
        z.rank_gift(&mon, "dave", 100, shared_at)?,
        TotalRank {
            total: 100,
            rank: 1
        }
    );
    assert_eq!(
        z.rank_set(
            &mon,
            "dave",
            100,
            RankSetOptions {
                gt: true,
                ..Default::default()
            }
        )?,
        TotalRank {
            total: 100,
            rank: 3
        }
    );
    let lower_shared = RankSetOptions {
        lt: true,
        shared: true,
        ..Default::default()
    };
    assert_eq!(
        z.rank_set(&mon, "carol", 98, lower_shared)?,
        TotalRank { total: 98, rank: 4 }
    );
    let dave = Some(RankInfo {
        total: 100,
        rank: 1,
        reached_at_ms: 1718000002000,
    });
    assert_eq!(
        z.rank_get(&mon, "dave", RankGetOptions { shared: true })?,
        dave
    );
    let shared_top = vec![
        entry(1, "alice", 100),
        entry(1, "bob", 100),
        entry(1, "dave", 100),
        entry(4, "carol", 98),
    ];
    assert_eq!(
        z.rank_top(
            &mon,
            10,
            RankTopOptions {
                offset: None,
                shared: true
            }
        )?,
        shared_top
    );
    assert_eq!(
        z.rank_top(
            &mon,
            2,
            RankTopOptions {
                offset: Some(2),
                shared: true
            }
        )?,
        shared_top[2..]
    );
    assert_eq!(
        z.rank_around(&mon, "carol", 1, RankAroundOptions { shared: true })?,
        shared_top[2..]
    );
    let mgift = z.rank_mgift(
        &[&mon, &week],
        "carol",
        2,
        RankMgiftOptions {
            at: Some(1718000003000),
            shared: false,
        },
    )?;
    assert_eq!(
        mgift,
        vec![
            TotalRank {
                total: 100,
                rank: 4
            },
            TotalRank { total: 2, rank: 3 }
        ]
    );
    assert_eq!(
        z.rank_mgift(
            &[&mon],
            "erin",
            1,
            RankMgiftOptions {
                at: None,
                shared: true
            }
        )?,
        vec![TotalRank { total: 1, rank: 5 }]
    );
    let carol = RankInfo {
        total: 100,
        rank: 4,
        reached_at_ms: 1718000003000,
    };
    let dave = RankInfo {
        total: 100,
        rank: 3,
        reached_at_ms: 1718000002000,
    };
    assert_eq!(
        z.rank_mget(
            &mon,
            &["dave", "nobody", "carol"],
            RankMgetOptions::default()
        )?,
        vec![Some(dave), None, Some(carol)]
    );
    assert_eq!(
        z.rank_mget(&mon, &["carol"], RankMgetOptions { shared: true })?,
        vec![Some(RankInfo { rank: 1, ..carol })]
    );
    // Totals 1, 100, 100, 100, 100: the median is the 3rd lowest.
    let board = z.rank_stats(&mon)?;
    assert_eq!(
        board,
        BoardStats {
            members: 5,
            top_total: Some(100),
            p99_total: Some(100),
            p90_total: Some(100),
            p50_total: Some(100),
            bottom_total: Some(1),
            ..board
        }
    );
    assert!(board.memory_bytes > 0, "{board:?}");
    assert_eq!(
        z.rank_stats(&k("{t}:noboard"))?,
        BoardStats {
            members: 0,
            top_total: None,
            p99_total: None,
            p90_total: None,
            p50_total: None,
            bottom_total: None,
            memory_bytes: 0
        }
    );

    let (feed, nofeed) = (k("{t}:feed"), k("{t}:nofeed"));
    assert_eq!(
        z.feed_add(
            &feed,
            &[(1.0, "item:1"), (2.0, "item:2"), (3.5, "item:3")],
            FeedAddOptions { cap: Some(2) }
        )?,
        3
    );
    let first = z.feed_page(
        &feed,
        FeedPageOptions {
            count: Some(1),
            ..Default::default()
        },
    )?;
    assert_eq!((first.items, first.more), (vec![item("item:3", 3.5)], true));
    let older = z.feed_page(
        &feed,
        FeedPageOptions {
            count: Some(5),
            older: first.bottom.as_deref(),
            ..Default::default()
        },
    )?;
    assert_eq!(
        (older.items, older.more),
        (vec![item("item:2", 2.0)], false)
    );
    let newer = z.feed_page(
        &feed,
        FeedPageOptions {
            newer: older.top.as_deref(),
            ..Default::default()
        },
    )?;
    assert_eq!(
        (newer.items, newer.more),
        (vec![item("item:3", 3.5)], false)
    );
    let empty = FeedPage {
        items: vec![],
        top: None,
        bottom: None,
        more: false,
    };
    assert_eq!(z.feed_page(&nofeed, FeedPageOptions::default())?, empty);

    let (jobs, inflight, dead, deliveries) = (
        k("{t}:jobs"),
        k("{t}:jobs:inflight"),
        k("{t}:dead"),
        k("{t}:deliveries"),
    );
    raw::<i64>(
        z.connection(),
        &[
            "ZADD", &jobs, "1000", "mail:1", "2000", "mail:2", "3000", "mail:3",
        ],
    );
    let lease = Some((inflight.as_str(), 60000));
    let polled = z.delay_poll(
        &jobs,
        DelayPollOptions {
            count: Some(2),
            lease,
            deadletter: None,
        },
    )?;
    assert_eq!(polled, vec![task("mail:1", 1000.0), task("mail:2", 2000.0)]);
    assert_eq!(
        z.delay_bpoll(
            &jobs,
            100,
            DelayBpollOptions {
                lease,
                ..Default::default()
            }
        )?,
        Some(vec![task("mail:3", 3000.0)])
    );
    assert_eq!(z.delay_bpoll(&jobs, 1, DelayBpollOptions::default())?, None);
    assert_eq!(z.delay_poll(&jobs, DelayPollOptions::default())?, vec![]);
    assert_eq!(
        z.delay_ack(
            &inflight,
            &["mail:1", "mail:2", "mail:9"],
            DelayAckOptions::default()
        )?,
        2
    );
    // mail:3 is held; NACK hands it back, counted: its second delivery is its last.
    let deadletter = Some((dead.as_str(), deliveries.as_str(), 1));
    assert!(z.delay_touch(&inflight, "mail:3", 120000)?);
    assert!(z.delay_nack(&inflight, &jobs, "mail:3", 0)?);
    assert!(!z.delay_nack(&inflight, &jobs, "mail:3", 0)?);
    assert!(!z.delay_touch(&inflight, "mail:3", 120000)?);
    let polled = z.delay_poll(
        &jobs,
        DelayPollOptions {
            count: None,
            lease,
            deadletter,
        },
    )?;
    assert_eq!(polled.len(), 1);
    assert_eq!(polled[0].task, "mail:3");
    assert_eq!(
        raw::<f64>(z.connection(), &["ZSCORE", &deliveries, "mail:3"]),
        1.0
    );
    assert!(z.delay_nack(&inflight, &jobs, "mail:3", 0)?);
    raw::<i64>(z.connection(), &["ZADD", &jobs, "4000", "mail:4"]);
    let polled = z.delay_bpoll(
        &jobs,
        100,
        DelayBpollOptions {
            count: Some(2),
            lease,
            deadletter,
        },
    )?;
    assert_eq!(polled, Some(vec![task("mail:4", 4000.0)]));
    assert_eq!(
        raw::<Vec<String>>(z.connection(), &["ZRANGE", &dead, "0", "-1"]),
        ["mail:3"]
    );
    assert_eq!(
        z.delay_ack(
            &inflight,
            &["mail:4"],
            DelayAckOptions {
                deliveries: Some(&deliveries)
            }
        )?,
        1
    );
    assert_eq!(
        raw::<i64>(z.connection(), &["EXISTS", &inflight, &deliveries]),
        0
    );
    let stats = z.delay_stats(
        &jobs,
        DelayStatsOptions {
            inflight: Some(&inflight),
            dead: Some(&dead),
            deliveries: Some(&deliveries),
        },
    )?;
    // mail:3 is dead; nothing else is left.
    assert_eq!(
        stats,
        DelayStats {
            tasks: 0,
            due: 0,
            oldest_due_age_ms: 0,
            next_due_ms: None,
            inflight: Some(0),
            expired: Some(0),
            dead: Some(1),
            redelivered: Some(0),
            ..stats
        }
    );
    assert!(stats.now_ms > 1718000000000, "{stats:?}");
    raw::<i64>(z.connection(), &["ZADD", &jobs, "5000", "mail:5"]);
    let stats = z.delay_stats(&jobs, DelayStatsOptions::default())?;
    assert_eq!(
        (stats.tasks, stats.due, stats.oldest_due_age_ms, stats.dead),
        (1, 1, stats.now_ms - 5000, None)
    );

    let (rate, rate2) = (k("{t}:rate"), k("{t}:rate2"));
    let hit = z.rate_hit(&rate, &[(60000, 2)], RateHitOptions { cost: Some(2) })?;
    assert_eq!(
        hit,
        RateResult {
            allowed: true,
            count: 2,
            remaining: 0,
            retry_after_ms: -1,
            binding: None
        }
    );
    let refused = z.rate_hit(&rate, &[(60000, 2)], RateHitOptions::default())?;
    assert_eq!(
        (
            refused.allowed,
            refused.count,
            refused.remaining,
            refused.binding
        ),
        (false, 2, 0, None)
    );
    assert!(
        0 < refused.retry_after_ms && refused.retry_after_ms <= 60000,
        "{refused:?}"
    );
    let log = z.rate_stats(&rate, &[60000, 120000])?;
    assert_eq!(
        (log.entries, log.windows.as_slice()),
        (2, [(60000, 2), (120000, 2)].as_slice())
    );
    assert!(log.newest_ms > Some(1718000000000), "{log:?}");
    let limits = [(60000, 5), (1000, 2)];
    let hit = z.rate_hit(&rate2, &limits, RateHitOptions { cost: Some(2) })?;
    assert_eq!(
        hit,
        RateResult {
            allowed: true,
            count: 2,
            remaining: 0,
            retry_after_ms: -1,
            binding: Some(2)
        }
    );
    let refused = z.rate_hit(&rate2, &limits, RateHitOptions::default())?;
    assert_eq!(
        (
            refused.allowed,
            refused.count,
            refused.remaining,
            refused.binding
        ),
        (false, 2, 0, Some(2))
    );
    assert!(
        0 < refused.retry_after_ms && refused.retry_after_ms <= 1000,
        "{refused:?}"
    );

    let recent = k("{t}:recent");
    assert_eq!(
        z.recent_add(
            &recent,
            &["3002", "3001", "3004"],
            RecentAddOptions {
                cap: Some(2),
                ttl: Some(60)
            }
        )?,
        2
    );
    assert_eq!(
        raw::<Vec<String>>(z.connection(), &["ZREVRANGE", &recent, "0", "-1"]),
        ["3004", "3001"]
    );
    let ttl = raw::<i64>(z.connection(), &["TTL", &recent]);
    assert!(0 < ttl && ttl <= 60, "TTL {ttl}");

    let time = k("{t}:time");
    raw::<i64>(
        z.connection(),
        &["ZADD", &time, &POSTED_AT.to_string(), "100408"],
    );
    let (score, up, down) = (k("{t}:score"), k("{t}:up:100408"), k("{t}:down:100408"));
    let weighted = VoteCastOptions {
        weight: Some((432.0, 432.0)),
        window: Some((&time, 10_i64.pow(10))),
    };
    let vote = z.vote_cast(
        &score,
        &up,
        &down,
        "100408",
        "user:1",
        Direction::Up,
        weighted,
    )?;
    assert_eq!(
        vote,
        VoteResult {
            score: 432.0,
            ups: 1,
            downs: 0,
            changed: true
        }
    );
    let weighted = VoteCastOptions {
        weight: Some((432.0, 432.0)),
        window: None,
    };
    let cast = |z: &mut Zkit<C>, direction| {
        z.vote_cast(&score, &up, &down, "100408", "user:1", direction, weighted)
    };
    let down_vote = VoteResult {
        score: -432.0,
        ups: 0,
        downs: 1,
        changed: true,
    };
    assert_eq!(cast(z, Direction::Down)?, down_vote);
    let unchanged = VoteResult {
        changed: false,
        ..down_vote
    };
    assert_eq!(cast(z, Direction::Down)?, unchanged);
    assert_eq!(z.vote_state(&up, &down, "user:1")?, -1);
    let cleared = VoteResult {
        score: 0.0,
        ups: 0,
        downs: 0,
        changed: true,
    };
    assert_eq!(cast(z, Direction::Clear)?, cleared);
    assert_eq!(z.vote_state(&up, &down, "user:1")?, 0);
    Ok(())
}

#[test]
fn every_command_on_a_server() {
    every_command(&mut single(), keys_of("every_command_on_a_server")).unwrap();
}

#[test]
fn every_command_on_a_cluster() {
    every_command(&mut cluster(), keys_of("every_command_on_a_cluster")).unwrap();
}

/// The server's clock, unix ms.
fn server_ms(connection: &mut impl ConnectionLike) -> i64 {
    let (seconds, micros): (i64, i64) = redis::cmd("TIME").query(connection).unwrap();
    seconds * 1000 + micros / 1000
}

/// IDMP and RETAIN: each write applies once per event id, and the reply
/// says whether it already was. The seen-key shares the tag {t}.
fn idmp_applies_once<C: Transport + ConnectionLike>(
    z: &mut Zkit<C>,
    k: impl Fn(&str) -> String,
) -> RedisResult<()> {
    let (room, hall, seen) = (k("{t}:room"), k("{t}:hall"), k("{t}:seen"));
    let applied = |total, rank, already_applied| Applied {
        reply: TotalRank { total, rank },
        already_applied,
    };
    let none = RankGiftOptions::default();
    let pay = Idmp::new(&seen, "pay-881");
    assert_eq!(
        z.rank_gift_idmp(&room, "alice", 10, pay, none)?,
        applied(10, 1, false)
    );
    assert_eq!(
        z.rank_gift_idmp(&room, "alice", 10, pay, none)?,
        applied(10, 1, true)
    );
    assert_eq!(z.rank_gift(&room, "alice", 0, none)?.total, 10);

    // RETAIN: the id is remembered that long (the score of the id in the
    // seen-key is when it is forgotten, plus a fraction), not a day.
    let before = server_ms(z.connection());
    let set = Idmp {
        retain: Some(60000),
        ..Idmp::new(&seen, "set-1")
    };
    let bob = z.rank_set_idmp(&room, "bob", 5, set, RankSetOptions::default())?;
    let after = server_ms(z.connection());
    assert_eq!(bob, applied(5, 2, false));
    let forgotten_at: f64 = raw(z.connection(), &["ZSCORE", &seen, "set-1"]);
    assert!(
        (before + 60000..=after + 60000).contains(&(forgotten_at as i64)),
        "set-1 is forgotten at {forgotten_at}, not 60 s after {before}..{after}"
    );
    let repeat = Idmp::new(&seen, "set-1");
    assert_eq!(
        z.rank_set_idmp(&room, "bob", 5, repeat, RankSetOptions::default())?,
        applied(5, 2, true)
    );
    // Another total under the same id is another event: refused.
    let error = z
        .rank_set_idmp(&room, "bob", 7, repeat, RankSetOptions::default())
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("already applied by a call with other arguments"),
        "{error}"
    );

    let boards = [room.as_str(), hall.as_str()];
    let m1 = Idmp::new(&seen, "m-1");
    let mgift = RankMgiftOptions::default();
    let both = vec![
        TotalRank { total: 6, rank: 2 },
        TotalRank { total: 1, rank: 1 },
    ];
    let first = Applied {
        reply: both,
        already_applied: false,
    };
    assert_eq!(z.rank_mgift_idmp(&boards, "bob", 1, m1, mgift)?, first);
    let again = Applied {
        already_applied: true,
        ..first
    };
    assert_eq!(z.rank_mgift_idmp(&boards, "bob", 1, m1, mgift)?, again);

    // A repeat after the member left the board: total 0, rank 0 (nil).
    raw::<i64>(z.connection(), &["ZREM", &room, "alice"]);
    assert_eq!(
        z.rank_gift_idmp(&room, "alice", 10, pay, none)?,
        applied(0, 0, true)
    );

    // RATE.HIT: with IDMP the reply holds the binding limit's position with
    // one limit too (six elements), so its length tells its shape.
    let rate = k("{t}:rate");
    let hit = |allowed, count, remaining, retry_after_ms, binding| RateResult {
        allowed,
        count,
        remaining,
        retry_after_ms,
        binding,
    };
    let cost = RateHitOptions::default();
    let limit = [(60000, 1)];
    let h1 = Idmp::new(&seen, "hit-1");
    assert_eq!(
        z.rate_hit_idmp(&rate, &limit, h1, cost)?,
        Applied {
            reply: hit(true, 1, 0, -1, Some(1)),
            already_applied: false
        }
    );
    // The repeat spends nothing and says so; another event is refused.
    assert_eq!(
        z.rate_hit_idmp(&rate, &limit, h1, cost)?,
        Applied {
            reply: hit(true, 1, 0, -1, Some(1)),
            already_applied: true
        }
    );
    let refused = z.rate_hit_idmp(&rate, &limit, Idmp::new(&seen, "hit-2"), cost)?;
    assert!(
        !refused.reply.allowed && refused.reply.binding == Some(1) && !refused.already_applied,
        "{refused:?}"
    );
    let limits = [(1000, 2), (60000, 3)];
    let h3 = Idmp {
        retain: Some(5000),
        ..Idmp::new(&seen, "hit-3")
    };
    assert_eq!(
        z.rate_hit_idmp(&k("{t}:rate2"), &limits, h3, cost)?,
        Applied {
            reply: hit(true, 1, 1, -1, Some(1)),
            already_applied: false
        }
    );
    Ok(())
}

#[test]
fn idmp_applies_once_on_a_server() {
    idmp_applies_once(&mut single(), keys_of("idmp_applies_once_on_a_server")).unwrap();
}

#[test]
fn idmp_applies_once_on_a_cluster() {
    idmp_applies_once(&mut cluster(), keys_of("idmp_applies_once_on_a_cluster")).unwrap();
}

/// RANK.MERGE in steps of one entry ends as the one-shot merge does; the
/// last step sent again repeats its reply.
fn merge_in_steps<C: Transport + ConnectionLike>(
    z: &mut Zkit<C>,
    k: impl Fn(&str) -> String,
) -> RedisResult<()> {
    let (mon, week, once, staging) = (k("{t}:mon"), k("{t}:week"), k("{t}:once"), k("{t}:staging"));
    let none = RankGiftOptions::default();
    for (member, amount) in [("alice", 100), ("bob", 50), ("carol", 20)] {
        z.rank_gift(&mon, member, amount, none)?;
    }
    let doubled = RankMergeOptions {
        weights: Some(&[2]),
    };
    let mut cursor = "0".to_string();
    let mut staged = Vec::new();
    let last = loop {
        let step = z.rank_merge_step(&week, &[&mon], Step::new(1, &staging, &cursor), doubled)?;
        staged.push(step.staged);
        if step.is_done() {
            break step;
        }
        assert_eq!(
            raw::<i64>(z.connection(), &["EXISTS", &week]),
            0,
            "week before the last step"
        );
        cursor = step.cursor;
    };
    assert_eq!(staged, [1, 2, 3]);
    assert_eq!(
        last,
        MergeStep {
            cursor: "0".to_string(),
            staged: 3
        }
    );
    assert_eq!(
        z.rank_merge_step(&week, &[&mon], Step::new(1, &staging, &cursor), doubled)?,
        last
    );
    assert_eq!(z.rank_merge(&once, &[&mon], doubled)?, 3);
    let top = z.rank_top(&week, 10, RankTopOptions::default())?;
    assert_eq!(top, z.rank_top(&once, 10, RankTopOptions::default())?);
    assert_eq!(top[0], entry(1, "alice", 200));
    Ok(())
}

#[test]
fn merge_in_steps_on_a_server() {
    merge_in_steps(&mut single(), keys_of("merge_in_steps_on_a_server")).unwrap();
}

#[test]
fn merge_in_steps_on_a_cluster() {
    merge_in_steps(&mut cluster(), keys_of("merge_in_steps_on_a_cluster")).unwrap();
}

/// Ids spelled like the keywords of RANK.MGET, DELAY.ACK and RECENT.ADD are
/// values: the lists follow their keyword (MEMBERS, TASKS, ITEMS) last.
fn ids_spelled_like_keywords<C: Transport + ConnectionLike>(
    z: &mut Zkit<C>,
    k: impl Fn(&str) -> String,
) -> RedisResult<()> {
    let board = k("board");
    let at = |ms| RankGiftOptions {
        at: Some(ms),
        shared: false,
    };
    z.rank_gift(&board, "SHARED", 5, at(1718000000000))?;
    z.rank_gift(&board, "MEMBERS", 5, at(1718000001000))?;
    let shared = z.rank_mget(
        &board,
        &["MEMBERS", "SHARED", "nobody"],
        RankMgetOptions { shared: true },
    )?;
    let first = RankInfo {
        total: 5,
        rank: 1,
        reached_at_ms: 1718000000000,
    };
    assert_eq!(
        shared,
        vec![
            Some(RankInfo {
                reached_at_ms: 1718000001000,
                ..first
            }),
            Some(first),
            None
        ]
    );
    let plain = z.rank_mget(&board, &["MEMBERS"], RankMgetOptions::default())?;
    assert_eq!(
        plain,
        vec![Some(RankInfo {
            total: 5,
            rank: 2,
            reached_at_ms: 1718000001000
        })]
    );

    let (jobs, inflight, deliveries) = (k("{q}:jobs"), k("{q}:inflight"), k("{q}:deliveries"));
    raw::<i64>(
        z.connection(),
        &["ZADD", &jobs, "1", "DELIVERIES", "2", "TASKS", "3", "COUNT"],
    );
    let dead = k("{q}:dead");
    let options = DelayPollOptions {
        count: Some(3),
        lease: Some((&inflight, 60000)),
        deadletter: Some((&dead, &deliveries, 5)),
    };
    let polled: Vec<String> = z
        .delay_poll(&jobs, options)?
        .into_iter()
        .map(|t| t.task)
        .collect();
    assert_eq!(polled, ["DELIVERIES", "TASKS", "COUNT"]);
    let acked = z.delay_ack(
        &inflight,
        &["DELIVERIES", "TASKS"],
        DelayAckOptions {
            deliveries: Some(&deliveries),
        },
    )?;
    assert_eq!(acked, 2);
    assert_eq!(
        raw::<Vec<String>>(z.connection(), &["ZRANGE", &inflight, "0", "-1"]),
        ["COUNT"]
    );
    assert_eq!(
        raw::<Vec<String>>(z.connection(), &["ZRANGE", &deliveries, "0", "-1"]),
        ["COUNT"]
    );

    let recent = k("recent");
    assert_eq!(
        z.recent_add(
            &recent,
            &["TTL", "CAP", "ITEMS", "CAP"],
            RecentAddOptions {
                cap: Some(5),
                ttl: None
            }
        )?,
        3
    );
    assert_eq!(
        raw::<Vec<String>>(z.connection(), &["ZREVRANGE", &recent, "0", "-1"]),
        ["CAP", "ITEMS", "TTL"]
    );
    assert_eq!(raw::<i64>(z.connection(), &["TTL", &recent]), -1);
    Ok(())
}

#[test]
fn ids_spelled_like_keywords_on_a_server() {
    ids_spelled_like_keywords(
        &mut single(),
        keys_of("ids_spelled_like_keywords_on_a_server"),
    )
    .unwrap();
}

#[test]
fn ids_spelled_like_keywords_on_a_cluster() {
    ids_spelled_like_keywords(
        &mut cluster(),
        keys_of("ids_spelled_like_keywords_on_a_cluster"),
    )
    .unwrap();
}

#[test]
fn the_table_is_what_the_module_registers() {
    let mut z = single();
    if library_engine() {
        // The library's functions, but its helpers and the blocking
        // DELAY.BPOLL, which the client runs by polling.
        let listed: redis::Value =
            raw(z.connection(), &["FUNCTION", "LIST", "LIBRARYNAME", "zkit"]);
        let text = format!("{listed:?}");
        for command in COMMANDS {
            let function = format!("zkit_{}", command.to_lowercase().replace('.', "_"));
            assert_eq!(
                text.contains(&format!("\"{function}\"")),
                *command != "DELAY.BPOLL",
                "{function} in {text}"
            );
        }
        return;
    }
    let listed: Vec<String> = raw(
        z.connection(),
        &["COMMAND", "LIST", "FILTERBY", "MODULE", "zkit"],
    );
    let registered: BTreeSet<String> = listed
        .iter()
        .map(|name| name.to_uppercase())
        .filter(|name| name != "ZKIT.DEBUG-PANIC")
        .collect();
    let table: BTreeSet<String> = COMMANDS.iter().map(|name| name.to_string()).collect();
    assert_eq!(registered, table);
}

#[test]
fn key_slots_are_the_servers() {
    let mut node = nodes().remove(0);
    for key in [
        "board",
        "{room42}:mon",
        "{room42}:week",
        "a{}{b}",
        "{{x}}",
        "feed:user:7",
        "{jobs}:inflight",
        "zkit-test-rust:x:{t}:mon",
    ] {
        let server: i64 = raw(&mut node, &["CLUSTER", "KEYSLOT", key]);
        assert_eq!(i64::from(key_slot(key.as_bytes())), server, "{key}");
    }
}

/// Many boards over every node: each call goes straight to its key's owner,
/// so no node answers MOVED or ASK.
#[test]
fn calls_over_many_slots_need_no_redirects() {
    let k = keys_of("calls_over_many_slots_need_no_redirects");
    let mut z = cluster();
    let boards: Vec<String> = (0..300).map(|i| k(&format!("board:{i}"))).collect();
    for round in 1..=3 {
        for board in &boards {
            assert_eq!(
                z.rank_gift(board, "alice", 1, RankGiftOptions::default())
                    .unwrap()
                    .total,
                round
            );
        }
    }
    let mut holding = 0;
    for mut node in nodes() {
        let errors: String = raw(&mut node, &["INFO", "errorstats"]);
        assert!(
            !errors.contains("errorstat_MOVED") && !errors.contains("errorstat_ASK"),
            "{errors}"
        );
        let owned = boards.iter().filter(|board| {
            let slot = key_slot(board.as_bytes()).to_string();
            raw::<i64>(&mut node, &["CLUSTER", "COUNTKEYSINSLOT", &slot]) > 0
                && raw::<i64>(&mut node, &["EXISTS", board]) == 1
        });
        holding += usize::from(owned.count() > 0);
    }
    assert_eq!(holding, 3, "the boards should spread over the 3 masters");
}

#[test]
fn cross_slot_keys_fail_before_sending() {
    let k = keys_of("cross_slot_keys_fail_before_sending");
    let mut z = cluster();
    // Keys of their own hash tags (the prefix has none): their slots differ.
    let (week, mon) = (k("{week}"), k("{mon}"));
    let error = z
        .rank_merge(&week, &[&mon], RankMergeOptions::default())
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Client);
    let detail = error.detail().unwrap();
    assert!(
        detail.starts_with("RANK.MERGE: keys must share a hash slot")
            && detail.contains(&week)
            && detail.contains(&mon),
        "{detail}"
    );
    let lease = Some((k("{jobs-inflight}"), 1000));
    let options = DelayPollOptions {
        lease: lease.as_ref().map(|(key, ms)| (key.as_str(), *ms)),
        ..Default::default()
    };
    assert_eq!(
        z.delay_poll(&k("{jobs}:inflight"), options)
            .unwrap_err()
            .kind(),
        ErrorKind::Client
    );
    let times = k("{times}");
    let window = VoteCastOptions {
        weight: None,
        window: Some((&times, 60)),
    };
    let error = z
        .vote_cast(
            &k("{n}:s"),
            &k("{n}:u"),
            &k("{n}:d"),
            "item",
            "voter",
            Direction::Up,
            window,
        )
        .unwrap_err();
    assert!(error.detail().unwrap().contains(&times));
    assert_eq!(
        z.rank_mgift(&[&k("{day}"), &week], "bob", 1, RankMgiftOptions::default())
            .unwrap_err()
            .kind(),
        ErrorKind::Client
    );
    assert_eq!(
        z.delay_nack(&k("{jobs}:inflight"), &k("{jobs-queue}"), "task", 0)
            .unwrap_err()
            .kind(),
        ErrorKind::Client
    );
    let deliveries = k("{deliveries}");
    let ack = DelayAckOptions {
        deliveries: Some(&deliveries),
    };
    assert_eq!(
        z.delay_ack(&k("{jobs}:inflight"), &["task"], ack)
            .unwrap_err()
            .kind(),
        ErrorKind::Client
    );
    // The IDMP seen-key and the STEP staging key route like the others.
    let (board, seen) = (k("{room}:board"), k("{seen}"));
    let error = z
        .rank_gift_idmp(
            &board,
            "alice",
            1,
            Idmp::new(&seen, "e-1"),
            RankGiftOptions::default(),
        )
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Client);
    assert!(error.detail().unwrap().contains(&seen), "{error}");
    assert_eq!(
        z.rate_hit_idmp(
            &board,
            &[(1000, 1)],
            Idmp::new(&seen, "e-2"),
            RateHitOptions::default()
        )
        .unwrap_err()
        .kind(),
        ErrorKind::Client
    );
    let staging = k("{staging}");
    let error = z
        .rank_merge_step(
            &k("{room}:week"),
            &[&board],
            Step::new(10, &staging, "0"),
            RankMergeOptions::default(),
        )
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Client);
    assert!(error.detail().unwrap().contains(&staging), "{error}");
    // Nothing was sent: no key of the test exists.
    for mut node in nodes() {
        let pattern = k("*");
        assert_eq!(
            raw::<Vec<String>>(&mut node, &["KEYS", &pattern]),
            Vec::<String>::new()
        );
    }
}

#[test]
fn cross_slot_keys_work_on_one_server() {
    let k = keys_of("cross_slot_keys_work_on_one_server");
    let mut z = single();
    z.rank_gift(&k("{mon}"), "alice", 3, RankGiftOptions::default())
        .unwrap();
    assert_eq!(
        z.rank_merge(&k("{week}"), &[&k("{mon}")], RankMergeOptions::default())
            .unwrap(),
        1
    );
}

#[test]
fn empty_lists_fail_before_sending() {
    let k = keys_of("empty_lists_fail_before_sending");
    let mut z = single();
    let error = z
        .rank_mget(&k("board"), &[], RankMgetOptions::default())
        .unwrap_err();
    assert_eq!(
        (error.kind(), error.detail()),
        (
            ErrorKind::Client,
            Some("RANK.MGET: members must not be empty")
        )
    );
    let error = z
        .rate_hit(&k("rate"), &[], RateHitOptions::default())
        .unwrap_err();
    assert_eq!(error.detail(), Some("RATE.HIT: limits must not be empty"));
    let error = z
        .rank_merge(
            &k("dest"),
            &[&k("a")],
            RankMergeOptions { weights: Some(&[]) },
        )
        .unwrap_err();
    assert_eq!(
        error.detail(),
        Some("RANK.MERGE: weights must not be empty")
    );
    assert_eq!(
        raw::<i64>(
            z.connection(),
            &["EXISTS", &k("dest"), &k("board"), &k("rate")]
        ),
        0
    );
}

fn server_errors_come_through<C: Transport + ConnectionLike>(
    z: &mut Zkit<C>,
    k: impl Fn(&str) -> String,
) {
    let up = k("{v}:up");
    raw::<String>(z.connection(), &["SET", &up, "not a set"]);
    let error = z
        .vote_cast(
            &k("{v}:s"),
            &up,
            &k("{v}:down"),
            "item",
            "voter",
            Direction::Up,
            VoteCastOptions::default(),
        )
        .unwrap_err();
    assert_eq!(error.code(), Some("WRONGTYPE"), "{error}");
    let error = z
        .rank_top(&k("board"), -1, RankTopOptions::default())
        .unwrap_err();
    assert_eq!(
        (error.code(), error.detail()),
        (Some("ERR"), Some("count must not be negative")),
        "{error}"
    );
}

#[test]
fn server_errors_come_through_on_a_server() {
    server_errors_come_through(
        &mut single(),
        keys_of("server_errors_come_through_on_a_server"),
    );
}

#[test]
fn server_errors_come_through_on_a_cluster() {
    server_errors_come_through(
        &mut cluster(),
        keys_of("server_errors_come_through_on_a_cluster"),
    );
}

/// RESP3 sends scores as doubles and nil as null: the same typed replies.
#[test]
fn resp3_replies_are_the_same() {
    let k = keys_of("resp3_replies_are_the_same");
    let client =
        redis::Client::open(format!("redis://{}/?protocol=resp3", server_address())).unwrap();
    let mut z = Zkit::new(client.get_connection().unwrap());
    assert!(
        matches!(
            raw::<redis::Value>(z.connection(), &["HELLO"]),
            redis::Value::Map(_)
        ),
        "not a RESP3 connection"
    );
    z.feed_add(
        &k("feed"),
        &[(0.1, "a"), (2.0, "b")],
        FeedAddOptions::default(),
    )
    .unwrap();
    let page = z.feed_page(&k("feed"), FeedPageOptions::default()).unwrap();
    assert_eq!(page.items, vec![item("b", 2.0), item("a", 0.1)]);
    assert!(!page.more);
    let older = z
        .feed_page(
            &k("feed"),
            FeedPageOptions {
                older: page.top.as_deref(),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(older.items, vec![item("a", 0.1)]);
    let weight = VoteCastOptions {
        weight: Some((0.5, 1.0)),
        window: None,
    };
    let vote = z
        .vote_cast(&k("s"), &k("u"), &k("d"), "i", "v", Direction::Up, weight)
        .unwrap();
    assert_eq!(
        vote,
        VoteResult {
            score: 0.5,
            ups: 1,
            downs: 0,
            changed: true
        }
    );
    raw::<i64>(z.connection(), &["ZADD", &k("q"), "5", "t"]);
    assert_eq!(
        z.delay_poll(&k("q"), DelayPollOptions::default()).unwrap(),
        vec![task("t", 5.0)]
    );
    assert_eq!(
        z.delay_bpoll(&k("q"), 1, DelayBpollOptions::default())
            .unwrap(),
        None
    );
    assert_eq!(
        z.rank_get(&k("board"), "nobody", RankGetOptions::default())
            .unwrap(),
        None
    );
    let limits = z
        .rate_hit(
            &k("rate"),
            &[(1000, 2), (60000, 3)],
            RateHitOptions::default(),
        )
        .unwrap();
    assert_eq!(
        limits,
        RateResult {
            allowed: true,
            count: 1,
            remaining: 1,
            retry_after_ms: -1,
            binding: Some(1)
        }
    );
    let seen = k("seen");
    let once = Idmp::new(&seen, "hit-1");
    let hit = z
        .rate_hit_idmp(&k("rate1"), &[(1000, 2)], once, RateHitOptions::default())
        .unwrap();
    // With IDMP the binding position is there with one limit too.
    assert_eq!((hit.reply.count, hit.reply.binding), (1, Some(1)));
    assert!(!hit.already_applied);
    let again = z
        .rate_hit_idmp(&k("rate1"), &[(1000, 2)], once, RateHitOptions::default())
        .unwrap();
    assert!(again.already_applied);
}

#[test]
fn the_engine_is_the_servers() {
    let expected = if library_engine() {
        Engine::Functions
    } else {
        Engine::Module
    };
    assert_eq!(single().engine().unwrap(), expected);
    assert_eq!(cluster().engine().unwrap(), expected);
}

#[test]
fn a_newer_library_stays_unless_forced() {
    let mut z = single();
    if !library_engine() {
        return;
    }
    let version = z.load_functions(false).unwrap();
    assert!(version.starts_with(env!("CARGO_PKG_VERSION")), "{version}");
    // Loaded already: a second call keeps it.
    assert_eq!(z.load_functions(false).unwrap(), version);
}

/// On the library the client polls with backoff where the module blocks:
/// the same reply, a task due while waiting included.
#[test]
fn bpoll_waits_for_a_task_on_either_engine() {
    let k = keys_of("bpoll_waits_for_a_task_on_either_engine");
    let mut z = single();
    let queue = k("{b}:jobs");
    let started = std::time::Instant::now();
    let none = z
        .delay_bpoll(&queue, 150, DelayBpollOptions::default())
        .unwrap();
    assert_eq!(none, None);
    assert!(started.elapsed() >= std::time::Duration::from_millis(140));
    let adder = {
        let queue = queue.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(100));
            let client = redis::Client::open(format!("redis://{}", server_address())).unwrap();
            let _: i64 = redis::cmd("ZADD")
                .arg(&queue)
                .arg(0)
                .arg("mail")
                .query(&mut client.get_connection().unwrap())
                .unwrap();
        })
    };
    let tasks = z
        .delay_bpoll(&queue, 5000, DelayBpollOptions::default())
        .unwrap();
    adder.join().unwrap();
    assert_eq!(tasks, Some(vec![task("mail", 0.0)]));
}
