//! Every zkit command through the Rust client, against the plain server and
//! the 3-master cluster scripts/suites/test-clients.sh starts (ZKIT_TEST_SERVER,
//! ZKIT_TEST_CLUSTER: host:port, comma-separated for the cluster). Each test
//! works under a key prefix of its own and flushes nothing, so the suite
//! runs beside other data and its tests run in parallel.

use std::collections::BTreeSet;
use std::time::{SystemTime, UNIX_EPOCH};

use redis::cluster::{ClusterClient, ClusterConnection};
use redis::{Connection, ConnectionLike, ErrorKind, RedisResult};
use zkit::*;

#[path = "commands/examples.rs"]
mod examples;
#[path = "commands/worker.rs"]
mod worker;
// Run by worker.rs; its main runs it as a script.
#[allow(dead_code)]
#[path = "../examples/job_queue.rs"]
mod job_queue_example;

const POSTED_AT: i64 = 1795313748; // unix s, for VOTE.CAST WINDOW

fn server_address() -> String {
    std::env::var("ZKIT_TEST_SERVER").expect(
        "ZKIT_TEST_SERVER (host:port) names the plain server; scripts/suites/test-clients.sh sets it",
    )
}

fn cluster_addresses() -> Vec<String> {
    let nodes = std::env::var("ZKIT_TEST_CLUSTER").expect(
        "ZKIT_TEST_CLUSTER (host:port,...) names the cluster; scripts/suites/test-clients.sh sets it",
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
        data: None,
    }
}

fn task(task: &str, due_ms: f64) -> Task {
    Task {
        task: task.to_string(),
        due_ms,
        token: None,
    }
}

fn item(member: &str, score: f64) -> FeedItem {
    FeedItem {
        member: member.to_string(),
        score,
    }
}

/// Groups: acme's cap holds, the other tenant is still served.
fn groups<C: Transport + ConnectionLike>(
    z: &mut Zkit<C>,
    k: &impl Fn(&str) -> String,
) -> RedisResult<()> {
    let (tenants, tenant_data) = (k("{t}:tenants"), k("{t}:tenants:data"));
    let tenant_held = k("{t}:tenants:inflight");
    let limits = DelayGroupOptions {
        cap: Some(1),
        rate: Some((60000, 10)),
    };
    assert!(z.delay_group(&tenants, &tenant_data, "acme", limits)?);
    let acme = DelayAddOptions {
        data: Some(&tenant_data),
        group: Some("acme"),
        ..Default::default()
    };
    let acme_jobs = [(0, "a:1", "x"), (0, "a:2", "x")];
    assert_eq!(z.delay_add_jobs(&tenants, &acme_jobs, acme)?, [1, 1]);
    let zeta = DelayAddOptions {
        group: Some("zeta"),
        ..acme
    };
    assert_eq!(z.delay_add(&tenants, &[(0, "z:1")], zeta)?, [1]);
    let tenant_poll = DelayPollOptions {
        count: Some(5),
        lease: Some((&tenant_held, 60000)),
        data: Some(&tenant_data),
        ..Default::default()
    };
    let mut held: Vec<String> = z
        .delay_poll(&tenants, tenant_poll)?
        .into_iter()
        .map(|t| t.task)
        .collect();
    held.sort();
    assert_eq!(held, ["a:1", "z:1"]);
    assert_eq!(
        z.delay_groups(&tenants, &tenant_data)?,
        [GroupState {
            group: "acme".into(),
            inflight: 1,
            cap: 1,
            rate_limit: 10,
            window_ms: 60000,
            capped: true,
            rate_limited: false,
        }]
    );
    let tenant_stats = DelayStatsOptions {
        data: Some(&tenant_data),
        ..Default::default()
    };
    assert_eq!(
        z.delay_stats(&tenants, tenant_stats)?.capped_groups,
        Some(1)
    );
    Ok(())
}

/// Repeating jobs: listed by id, changed, cancelled (the library refuses
/// them).
fn repeating_jobs<C: Transport + ConnectionLike>(
    z: &mut Zkit<C>,
    k: &impl Fn(&str) -> String,
) -> RedisResult<()> {
    let (beats, beat_data) = (k("{t}:beats"), k("{t}:beats:data"));
    let from_2100 = DelayScheduleOptions {
        start: Some(4102444800000),
        payload: Some("p"),
        ..Default::default()
    };
    assert_eq!(
        z.delay_schedule(&beats, &beat_data, "beat", 60000, from_2100)?,
        4102444800000
    );
    let paris = DelayScheduleOptions {
        tz: Some("Europe/Paris"),
        ..Default::default()
    };
    // On both engines: the library reads cron rules in a time zone as the module does.
    assert!(
        z.delay_schedule_cron(&beats, &beat_data, "daily", "0 9 * * *", paris)? > 1718000000000
    );
    let rows = z.delay_schedules(&beats, &beat_data)?;
    assert_eq!(
        rows.iter()
            .map(|row| (
                row.id.as_str(),
                row.every_ms,
                row.cron.as_deref(),
                row.tz.as_deref(),
                row.payload.as_deref()
            ))
            .collect::<Vec<_>>(),
        [
            ("beat", Some(60000), None, None, Some("p")),
            ("daily", None, Some("0 9 * * *"), Some("Europe/Paris"), None)
        ]
    );
    // Each pending occurrence is a task <id>@<unix-ms> in the queue.
    assert_eq!(
        raw::<Vec<String>>(z.connection(), &["ZRANGE", &beats, "0", "-1"]),
        [
            format!("daily@{}", rows[1].next_ms.unwrap()),
            "beat@4102444800000".to_string()
        ]
    );
    assert!(z.delay_unschedule(&beats, &beat_data, "beat")?);
    assert!(!z.delay_unschedule(&beats, &beat_data, "beat")?);
    Ok(())
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
            rank: 1,
            columns: None
        }
    );
    assert_eq!(
        z.rank_gift(&mon, "bob", 50, none)?,
        TotalRank {
            total: 50,
            rank: 2,
            columns: None
        }
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
            rank: 2,
            columns: None
        }
    );
    let info = Some(RankInfo {
        total: 100,
        rank: 2,
        reached_at_ms: 1718000001000,
        data: None,
    });
    assert_eq!(z.rank_get(&mon, "bob", RankGetOptions::default())?, info);
    assert_eq!(z.rank_get(&mon, "nobody", RankGetOptions::default())?, None);
    // DATA: member data beside the board, set with the score, read with the
    // rank, removed with the member.
    let (game, profiles) = (k("{t}:game"), k("{t}:profiles"));
    let with_data = RankGiftOptions {
        data: Some((&profiles, "Ann|fr")),
        ..none
    };
    assert_eq!(
        z.rank_gift(&game, "ann", 3, with_data)?,
        TotalRank {
            total: 3,
            rank: 1,
            columns: None
        }
    );
    let read = RankTopOptions {
        data: Some(&profiles),
        ..Default::default()
    };
    assert_eq!(
        z.rank_top(&game, 5, read)?,
        vec![RankEntry {
            data: Some(Some("Ann|fr".to_string())),
            ..entry(1, "ann", 3)
        }]
    );
    let removal = RankRemoveOptions {
        data: Some(&profiles),
        ..Default::default()
    };
    assert_eq!(z.rank_remove(&game, &["ann"], removal)?, 1);
    let top = vec![entry(1, "alice", 100), entry(2, "bob", 100)];
    assert_eq!(z.rank_top(&mon, 10, RankTopOptions::default())?, top);
    assert_eq!(
        z.rank_top(
            &mon,
            1,
            RankTopOptions {
                offset: Some(1),
                shared: false,
                ..Default::default()
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
        ..Default::default()
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
        TotalRank {
            total: 99,
            rank: 3,
            columns: None
        }
    );
    // TTL: the board expires a day after this write.
    let shared_at = RankGiftOptions {
        at: Some(1718000002000),
        shared: true,
        ttl: Some(86400),
        ..Default::default()
    };
    assert_eq!(
        z.rank_gift(&mon, "dave", 100, shared_at)?,
        TotalRank {
            total: 100,
            rank: 1,
            columns: None
        }
    );
    let ttl: i64 = raw(z.connection(), &["TTL", &mon]);
    assert!((86000..=86400).contains(&ttl), "{ttl}");
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
            rank: 3,
            columns: None
        }
    );
    let lower_shared = RankSetOptions {
        lt: true,
        shared: true,
        ..Default::default()
    };
    assert_eq!(
        z.rank_set(&mon, "carol", 98, lower_shared)?,
        TotalRank {
            total: 98,
            rank: 4,
            columns: None
        }
    );
    let dave = Some(RankInfo {
        total: 100,
        rank: 1,
        reached_at_ms: 1718000002000,
        data: None,
    });
    assert_eq!(
        z.rank_get(
            &mon,
            "dave",
            RankGetOptions {
                shared: true,
                ..Default::default()
            }
        )?,
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
                shared: true,
                ..Default::default()
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
                shared: true,
                ..Default::default()
            }
        )?,
        shared_top[2..]
    );
    assert_eq!(
        z.rank_around(
            &mon,
            "carol",
            1,
            RankAroundOptions {
                shared: true,
                ..Default::default()
            }
        )?,
        shared_top[2..]
    );
    let mgift = z.rank_mgift(
        &[&mon, &week],
        "carol",
        2,
        RankMgiftOptions {
            at: Some(1718000003000),
            ..Default::default()
        },
    )?;
    assert_eq!(
        mgift,
        vec![
            TotalRank {
                total: 100,
                rank: 4,
                columns: None
            },
            TotalRank {
                total: 2,
                rank: 3,
                columns: None
            }
        ]
    );
    assert_eq!(
        z.rank_mgift(
            &[&mon],
            "erin",
            1,
            RankMgiftOptions {
                shared: true,
                ..Default::default()
            }
        )?,
        vec![TotalRank {
            total: 1,
            rank: 5,
            columns: None
        }]
    );
    let carol = RankInfo {
        total: 100,
        rank: 4,
        reached_at_ms: 1718000003000,
        data: None,
    };
    let dave = RankInfo {
        total: 100,
        rank: 3,
        reached_at_ms: 1718000002000,
        data: None,
    };
    assert_eq!(
        z.rank_mget(
            &mon,
            &["dave", "nobody", "carol"],
            RankMgetOptions::default()
        )?,
        vec![Some(dave), None, Some(carol.clone())]
    );
    assert_eq!(
        z.rank_mget(
            &mon,
            &["carol"],
            RankMgetOptions {
                shared: true,
                ..Default::default()
            }
        )?,
        vec![Some(RankInfo { rank: 1, ..carol })]
    );
    let pct = k("{t}:pct");
    for (member, total) in [("a", 1), ("b", 2), ("c", 3), ("d", 4)] {
        z.rank_gift(&pct, member, total, RankGiftOptions::default())?;
    }
    assert_eq!(
        z.rank_percentile(&pct, "d", RankPercentileOptions::default())?,
        Some(75)
    );
    assert_eq!(
        z.rank_percentile(&pct, "a", RankPercentileOptions::default())?,
        Some(0)
    );
    assert_eq!(
        z.rank_percentile(&pct, "nobody", RankPercentileOptions::default())?,
        None
    );
    assert_eq!(
        z.rank_quantile(&pct, 50.0, RankQuantileOptions::default())?,
        Some(2.5)
    );
    assert_eq!(
        z.rank_quantile(&pct, 87.5, RankQuantileOptions::default())?,
        Some(3.625)
    );
    assert_eq!(
        z.rank_quantile(&k("{t}:noboard"), 50.0, RankQuantileOptions::default())?,
        None
    );
    assert_eq!(z.rank_count(&pct, "2", "+inf")?, 3);
    assert_eq!(z.rank_count(&pct, "(2", "+inf")?, 2);
    assert_eq!(z.rank_count(&pct, "-inf", "(2")?, 1);
    // e reaches 3 at a time given before c's (the server's now): d 4, e 3,
    // c 3, b 2, a 1.
    let early = RankGiftOptions {
        at: Some(1718000000000),
        ..RankGiftOptions::default()
    };
    z.rank_gift(&pct, "e", 3, early)?;
    assert_eq!(
        z.rank_range(&pct, "3", "(1", RankRangeOptions::default())?,
        vec![entry(2, "e", 3), entry(3, "c", 3), entry(4, "b", 2)]
    );
    let page = RankRangeOptions {
        limit: Some((2, 1)),
        shared: true,
        ..Default::default()
    };
    assert_eq!(
        z.rank_range(&pct, "+inf", "-inf", page)?,
        vec![entry(2, "c", 3)]
    );
    assert_eq!(
        z.rank_range(&k("{t}:noboard"), "+inf", "-inf", page)?,
        vec![]
    );
    assert_eq!(
        z.rank_among(
            &pct,
            &["c", "a", "nobody", "e"],
            RankAmongOptions {
                shared: true,
                ..Default::default()
            }
        )?,
        vec![entry(1, "e", 3), entry(1, "c", 3), entry(3, "a", 1)]
    );
    assert_eq!(
        z.rank_among(&pct, &["SHARED", "c"], RankAmongOptions::default())?,
        vec![entry(1, "c", 3)]
    );
    // Totals 1, 100, 100, 100, 100: the median is the 3rd lowest.
    let board = z.rank_stats(&mon, RankStatsOptions::default())?;
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
        z.rank_stats(&k("{t}:noboard"), RankStatsOptions::default())?,
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
            withtokens: false,
            ..Default::default()
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
    assert!(z.delay_nack(&inflight, &jobs, "mail:3", 0, DelayNackOptions::default())?);
    assert!(!z.delay_nack(&inflight, &jobs, "mail:3", 0, DelayNackOptions::default())?);
    assert!(!z.delay_touch(&inflight, "mail:3", 120000)?);
    let polled = z.delay_poll(
        &jobs,
        DelayPollOptions {
            count: None,
            lease,
            deadletter,
            withtokens: false,
            ..Default::default()
        },
    )?;
    assert_eq!(polled.len(), 1);
    assert_eq!(polled[0].task, "mail:3");
    assert_eq!(
        raw::<f64>(z.connection(), &["ZSCORE", &deliveries, "mail:3"]),
        1.0
    );
    assert!(z.delay_nack(&inflight, &jobs, "mail:3", 0, DelayNackOptions::default())?);
    raw::<i64>(z.connection(), &["ZADD", &jobs, "4000", "mail:4"]);
    let polled = z.delay_bpoll(
        &jobs,
        100,
        DelayBpollOptions {
            count: Some(2),
            lease,
            deadletter,
            withtokens: false,
            ..Default::default()
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
                deliveries: Some(&deliveries),
                ..Default::default()
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
            ..Default::default()
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
    // Fenced leases: each delivery's token; a stale token's calls change nothing.
    let fenced = DelayPollOptions {
        lease,
        withtokens: true,
        ..Default::default()
    };
    let [claimed] = <[Task; 1]>::try_from(z.delay_poll(&jobs, fenced)?).unwrap();
    let token = claimed.token.unwrap();
    assert_eq!((claimed.task.as_str(), claimed.due_ms), ("mail:5", 5000.0));
    let score =
        |z: &mut Zkit<C>| raw::<Option<i64>>(z.connection(), &["ZSCORE", &inflight, "mail:5"]);
    assert_eq!(score(z), Some(token));
    let renewed = z.delay_touch_token(&inflight, "mail:5", 120000, token)?;
    assert!(renewed > token, "{renewed} after {token}");
    assert_eq!(z.delay_touch_token(&inflight, "mail:5", 120000, token)?, 0);
    assert!(!z.delay_nack_token(
        &inflight,
        &jobs,
        "mail:5",
        0,
        token,
        DelayNackOptions::default()
    )?);
    assert_eq!(
        z.delay_ack_leases(&inflight, &[("mail:5", token)], DelayAckOptions::default())?,
        0
    );
    assert_eq!(score(z), Some(renewed));
    assert!(z.delay_nack_token(
        &inflight,
        &jobs,
        "mail:5",
        0,
        renewed,
        DelayNackOptions::default()
    )?);
    let again = z.delay_bpoll(
        &jobs,
        100,
        DelayBpollOptions {
            lease,
            withtokens: true,
            ..Default::default()
        },
    )?;
    let [again] = <[Task; 1]>::try_from(again.unwrap()).unwrap();
    assert_eq!(again.token, score(z));
    let ack = DelayAckOptions {
        deliveries: Some(&deliveries),
        ..Default::default()
    };
    assert_eq!(
        z.delay_ack_leases(&inflight, &[("mail:5", again.token.unwrap())], ack)?,
        1
    );
    assert_eq!(raw::<i64>(z.connection(), &["EXISTS", &inflight]), 0);

    // Jobs: tasks that carry their data, in the hash beside the queue.
    let data = k("{t}:jobs:data");
    let with_data = DelayAddOptions {
        data: Some(&data),
        ..Default::default()
    };
    let added = [(0, "mail:17", "to=ann"), (0, "mail:18", "to=bob")];
    assert_eq!(z.delay_add_jobs(&jobs, &added, with_data)?, [1, 1]);
    let keep = DelayAddOptions {
        keep: true,
        ..with_data
    };
    assert_eq!(
        z.delay_add_jobs(&jobs, &[(0, "mail:17", "to=cat")], keep)?,
        [0]
    );
    let field =
        |z: &mut Zkit<C>, name: &str| raw::<Option<String>>(z.connection(), &["HGET", &data, name]);
    assert_eq!(field(z, "p:mail:17").as_deref(), Some("to=ann"));
    let before_ms = server_ms(z.connection());
    let replace = DelayAddOptions {
        inflight: Some(&inflight),
        replace: true,
        within: Some(3600000),
        ..with_data
    };
    assert_eq!(
        z.delay_add_jobs(&jobs, &[(0, "mail:18", "to=dan")], replace)?,
        [2]
    );
    let after_ms = server_ms(z.connection());
    assert_eq!(field(z, "p:mail:18").as_deref(), Some("to=dan"));
    // Its not-started-by deadline, counted from now (a due time past is now).
    let deadline_ms: i64 = field(z, "x:mail:18").expect("a deadline").parse().unwrap();
    assert!(
        (before_ms + 3600000..=after_ms + 3600000).contains(&deadline_ms),
        "{deadline_ms}"
    );
    let extend = DelayAddOptions {
        extend: true,
        ..Default::default()
    };
    assert_eq!(
        z.delay_add(
            &jobs,
            &[(4102444800000, "report:1")],
            DelayAddOptions::default()
        )?,
        [1]
    );
    assert_eq!(
        z.delay_add(&jobs, &[(4102444800001, "report:1")], extend)?,
        [2]
    );
    // EXTEND only moves a task later.
    assert_eq!(
        z.delay_add(&jobs, &[(4102444700000, "report:1")], extend)?,
        [0]
    );
    assert_eq!(
        raw::<i64>(z.connection(), &["ZSCORE", &jobs, "report:1"]),
        4102444800001
    );
    assert!(z.delay_pause(&jobs, &data)?);
    assert!(!z.delay_pause(&jobs, &data)?);
    let paused = |z: &mut Zkit<C>| {
        z.delay_stats(
            &jobs,
            DelayStatsOptions {
                data: Some(&data),
                ..Default::default()
            },
        )
        .map(|stats| stats.paused)
    };
    assert_eq!(paused(z)?, Some(true));
    let jobs_poll = DelayPollOptions {
        lease,
        data: Some(&data),
        ..Default::default()
    };
    assert_eq!(z.delay_poll_withdata(&jobs, jobs_poll)?, vec![]);
    assert!(z.delay_resume(&jobs, &data)?);
    assert!(!z.delay_resume(&jobs, &data)?);
    assert_eq!(paused(z)?, Some(false));
    let last_try = Some((dead.as_str(), deliveries.as_str(), 1));
    let held = z.delay_poll_withdata(
        &jobs,
        DelayPollOptions {
            count: Some(3),
            deadletter: last_try,
            worker: Some("worker-1"),
            ..jobs_poll
        },
    )?;
    let summary: Vec<_> = held
        .iter()
        .map(|job| (job.task.as_str(), job.payload.as_deref(), job.deliveries))
        .collect();
    assert_eq!(
        summary,
        [
            ("mail:17", Some("to=ann"), Some(1)),
            ("mail:18", Some("to=dan"), Some(1))
        ]
    );
    let token = held[0].token.unwrap();
    assert_eq!(
        raw::<i64>(z.connection(), &["ZSCORE", &inflight, "mail:17"]),
        token
    );
    assert_eq!(field(z, "w:mail:17").as_deref(), Some("worker-1"));
    let names = DelayJobOptions {
        inflight: Some(&inflight),
        dead: Some(&dead),
        deliveries: Some(&deliveries),
        data: Some(&data),
    };
    assert_eq!(
        z.delay_job(&jobs, "mail:17", names)?,
        JobInfo {
            state: Some("inflight".into()),
            score: Some(token as f64),
            payload: Some("to=ann".into()),
            deliveries: Some(1),
            last_reason: None,
            deadline_ms: None,
            worker: Some("worker-1".into()),
        }
    );
    // mail:18 fails: handed back with its reason; delivered once already, the next poll buries it.
    let reason = DelayNackOptions {
        data: Some(&data),
        reason: Some("SMTP 451"),
    };
    assert!(z.delay_nack_token(
        &inflight,
        &jobs,
        "mail:18",
        0,
        held[1].token.unwrap(),
        reason
    )?);
    assert_eq!(field(z, "r:mail:18").as_deref(), Some("SMTP 451"));
    assert_eq!(field(z, "w:mail:18"), None);
    let bpoll = DelayBpollOptions {
        lease,
        data: Some(&data),
        ..Default::default()
    };
    let buried = DelayBpollOptions {
        deadletter: last_try,
        ..bpoll
    };
    assert_eq!(z.delay_bpoll_withdata(&jobs, 100, buried)?, None);
    let died: f64 = raw(z.connection(), &["ZSCORE", &dead, "mail:18"]);
    assert_eq!(
        z.delay_job(&jobs, "mail:18", names)?,
        JobInfo {
            state: Some("dead".into()),
            score: Some(died),
            payload: Some("to=dan".into()),
            deliveries: Some(1),
            last_reason: Some("SMTP 451".into()),
            deadline_ms: None,
            worker: None,
        }
    );
    let retry = DelayRetryOptions { data: Some(&data) };
    assert_eq!(
        z.delay_retry(&dead, &jobs, &["mail:18", "nobody"], retry)?,
        1
    );
    let retried = z.delay_bpoll_withdata(&jobs, 1000, bpoll)?.unwrap();
    let [retried] = <[Job; 1]>::try_from(retried).unwrap();
    assert_eq!(
        (
            retried.task.as_str(),
            retried.payload.as_deref(),
            retried.deliveries
        ),
        ("mail:18", Some("to=dan"), None)
    );
    let ack = DelayAckOptions {
        deliveries: Some(&deliveries),
        data: Some(&data),
    };
    let leases = [("mail:17", token), ("mail:18", retried.token.unwrap())];
    assert_eq!(z.delay_ack_leases(&inflight, &leases, ack)?, 2);
    // Payloads, reasons and holders went with them.
    assert_eq!(
        raw::<i64>(z.connection(), &["EXISTS", &inflight, &deliveries, &data]),
        0
    );
    // Polled without a lease, a job is done: its data goes with it.
    assert_eq!(
        z.delay_add_jobs(&jobs, &[(0, "mail:19", "to=eve")], with_data)?,
        [1]
    );
    let done = z.delay_poll_withdata(
        &jobs,
        DelayPollOptions {
            data: Some(&data),
            ..Default::default()
        },
    )?;
    assert_eq!(
        done.iter()
            .map(|job| (
                job.task.as_str(),
                job.token,
                job.payload.as_deref(),
                job.deliveries
            ))
            .collect::<Vec<_>>(),
        [("mail:19", None, Some("to=eve"), None)]
    );
    assert_eq!(raw::<i64>(z.connection(), &["EXISTS", &data]), 0);
    assert_eq!(
        raw::<Vec<String>>(z.connection(), &["ZRANGE", &jobs, "0", "-1"]),
        ["report:1"]
    );

    // Priority lanes: the first queue's due task first, then the next's.
    let (high, low) = (k("{t}:high"), k("{t}:low"));
    assert_eq!(z.delay_add(&low, &[(0, "low:1")], Default::default())?, [1]);
    assert_eq!(
        z.delay_add(&high, &[(0, "high:1")], Default::default())?,
        [1]
    );
    let lanes = [low.as_str()];
    let laned = DelayPollOptions {
        count: Some(5),
        lanes: Some(&lanes),
        ..Default::default()
    };
    let claimed = z.delay_poll(&high, laned)?;
    assert_eq!(
        claimed.iter().map(|t| t.task.as_str()).collect::<Vec<_>>(),
        ["high:1", "low:1"]
    );
    let laned = DelayBpollOptions {
        lanes: Some(&lanes),
        ..Default::default()
    };
    assert_eq!(z.delay_bpoll(&high, 1, laned)?, None);
    groups(z, &k)?;
    let tenant_data = k("{t}:tenants:data");
    // Rate-limited claims: one per minute across workers.
    let (rated, rate_log) = (k("{t}:rated"), k("{t}:rated:log"));
    let window = PollRate::new(&rate_log, 60000, 1);
    let rated_jobs = [(0, "r:1", "x"), (0, "r:2", "y")];
    let with_tenant_data = DelayAddOptions {
        data: Some(&tenant_data),
        ..Default::default()
    };
    assert_eq!(
        z.delay_add_jobs(&rated, &rated_jobs, with_tenant_data)?,
        [1, 1]
    );
    let first = z.delay_poll_withdata_rate(
        &rated,
        window,
        DelayPollOptions {
            data: Some(&tenant_data),
            ..Default::default()
        },
    )?;
    assert_eq!(
        (
            first
                .jobs
                .iter()
                .map(|job| job.payload.as_deref())
                .collect::<Vec<_>>(),
            first.retry_after_ms
        ),
        (vec![Some("x")], -1)
    );
    let limited = z.delay_poll_rate(&rated, window, Default::default())?;
    assert!(limited.tasks.is_empty());
    assert!(limited.retry_after_ms > 0 && limited.retry_after_ms <= 60000);
    repeating_jobs(z, &k)?;

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
    // A peek answers what the hit would and logs nothing; a cost above the
    // limit is refused with -1 (it never fits); a negative cost gives back.
    let rate5 = k("{t}:rate5");
    let result = |allowed, count, remaining, retry_after_ms, binding| RateResult {
        allowed,
        count,
        remaining,
        retry_after_ms,
        binding,
    };
    let cost = |cost| RatePeekOptions { cost: Some(cost) };
    assert_eq!(
        z.rate_peek(&rate5, &[(60000, 3)], cost(2))?,
        result(true, 2, 1, -1, None)
    );
    assert_eq!(raw::<i64>(z.connection(), &["EXISTS", &rate5]), 0);
    assert_eq!(
        z.rate_peek(&rate5, &[(60000, 3), (1000, 1)], cost(2))?,
        result(false, 0, 1, -1, Some(2))
    );
    for (units, reply) in [
        (2, result(true, 2, 1, -1, None)),
        (-1, result(true, 1, 2, -1, None)),
        (4, result(false, 1, 2, -1, None)),
    ] {
        let hit = RateHitOptions { cost: Some(units) };
        assert_eq!(
            z.rate_hit(&rate5, &[(60000, 3)], hit)?,
            reply,
            "cost {units}"
        );
    }
    // At most one at once: the second holder waits for the lease; a token
    // that is not the lease's frees nothing.
    let busy = k("{t}:busy");
    let held = z.rate_acquire(&busy, "req:1", 60000, 1)?;
    assert_eq!(
        RateAcquired { token: 0, ..held },
        RateAcquired {
            acquired: true,
            held: 1,
            remaining: 0,
            retry_after_ms: -1,
            token: 0
        }
    );
    assert!(held.token > 1718000000000, "{held:?}");
    let waiting = z.rate_acquire(&busy, "req:2", 60000, 1)?;
    assert_eq!(
        (waiting.acquired, waiting.held, waiting.token),
        (false, 1, -1)
    );
    assert!(
        0 < waiting.retry_after_ms && waiting.retry_after_ms <= 60000,
        "{waiting:?}"
    );
    assert!(!z.rate_release_token(&busy, "req:1", held.token - 1)?);
    assert!(z.rate_release_token(&busy, "req:1", held.token)?);
    assert!(!z.rate_release(&busy, "req:1")?);

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

/// A worker whose lease ended and whose task another worker claimed since:
/// its ACK, NACK and TOUCH with its token answer 0 (false) and leave the new
/// delivery as it is; the new holder's act.
fn stale_holders_change_nothing<C: Transport + ConnectionLike>(
    z: &mut Zkit<C>,
    k: impl Fn(&str) -> String,
) -> RedisResult<()> {
    let (queue, inflight) = (k("{jobs}"), k("{jobs}:inflight"));
    raw::<i64>(z.connection(), &["ZADD", &queue, "1", "mail:1"]);
    let lease = |ms| DelayPollOptions {
        lease: Some((inflight.as_str(), ms)),
        withtokens: true,
        ..Default::default()
    };
    let first = z.delay_poll(&queue, lease(1))?.remove(0); // its lease ends a ms later
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let second = loop {
        if let Some(task) = z.delay_poll(&inflight, lease(60000))?.pop() {
            break task;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the lease did not end"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    let (old, new) = (first.token.unwrap(), second.token.unwrap());
    assert!(second.task == "mail:1" && new > old, "{old} then {new}");
    let state = |z: &mut Zkit<C>| {
        let held: Vec<(String, i64)> = raw(
            z.connection(),
            &["ZRANGE", &inflight, "0", "-1", "WITHSCORES"],
        );
        let due: Vec<String> = raw(z.connection(), &["ZRANGE", &queue, "0", "-1"]);
        (held, due)
    };
    let taken_over = (vec![("mail:1".to_string(), new)], vec![]);
    assert_eq!(state(z), taken_over);
    let none = DelayAckOptions::default();
    assert_eq!(z.delay_ack_leases(&inflight, &[("mail:1", old)], none)?, 0);
    assert!(!z.delay_nack_token(
        &inflight,
        &queue,
        "mail:1",
        0,
        old,
        DelayNackOptions::default()
    )?);
    assert_eq!(z.delay_touch_token(&inflight, "mail:1", 60000, old)?, 0);
    assert_eq!(state(z), taken_over);
    let renewed = z.delay_touch_token(&inflight, "mail:1", 60000, new)?;
    assert_eq!(state(z).0, [("mail:1".to_string(), renewed)]);
    assert_eq!(
        z.delay_ack_leases(&inflight, &[("mail:1", renewed)], none)?,
        1
    );
    assert_eq!(state(z), (vec![], vec![]));
    Ok(())
}

#[test]
fn stale_holders_change_nothing_on_a_server() {
    stale_holders_change_nothing(
        &mut single(),
        keys_of("stale_holders_change_nothing_on_a_server"),
    )
    .unwrap();
}

#[test]
fn stale_holders_change_nothing_on_a_cluster() {
    stale_holders_change_nothing(
        &mut cluster(),
        keys_of("stale_holders_change_nothing_on_a_cluster"),
    )
    .unwrap();
}

#[test]
fn every_command_on_a_server() {
    every_command(&mut single(), keys_of("every_command_on_a_server")).unwrap();
}

#[test]
fn every_command_on_a_cluster() {
    every_command(&mut cluster(), keys_of("every_command_on_a_cluster")).unwrap();
}

#[test]
fn every_declared_example_on_a_server() {
    examples::every_declared_example(&mut single(), keys_of("every_declared_example_on_a_server"))
        .unwrap();
}

#[test]
fn every_declared_example_on_a_cluster() {
    examples::every_declared_example(
        &mut cluster(),
        keys_of("every_declared_example_on_a_cluster"),
    )
    .unwrap();
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
        reply: TotalRank {
            total,
            rank,
            columns: None,
        },
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
        TotalRank {
            total: 6,
            rank: 2,
            columns: None,
        },
        TotalRank {
            total: 1,
            rank: 1,
            columns: None,
        },
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
        ..Default::default()
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
        ..RankGiftOptions::default()
    };
    z.rank_gift(&board, "SHARED", 5, at(1718000000000))?;
    z.rank_gift(&board, "MEMBERS", 5, at(1718000001000))?;
    let shared = z.rank_mget(
        &board,
        &["MEMBERS", "SHARED", "nobody"],
        RankMgetOptions {
            shared: true,
            ..Default::default()
        },
    )?;
    let first = RankInfo {
        total: 5,
        rank: 1,
        reached_at_ms: 1718000000000,
        data: None,
    };
    assert_eq!(
        shared,
        vec![
            Some(RankInfo {
                reached_at_ms: 1718000001000,
                data: None,
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
            reached_at_ms: 1718000001000,
            data: None,
        })]
    );

    let (jobs, inflight, deliveries) = (k("{q}:jobs"), k("{q}:inflight"), k("{q}:deliveries"));
    raw::<i64>(
        z.connection(),
        &[
            "ZADD",
            &jobs,
            "1",
            "DELIVERIES",
            "2",
            "TASKS",
            "3",
            "COUNT",
            "4",
            "LEASES",
        ],
    );
    let dead = k("{q}:dead");
    let options = DelayPollOptions {
        count: Some(4),
        lease: Some((&inflight, 60000)),
        deadletter: Some((&dead, &deliveries, 5)),
        withtokens: true,
        ..Default::default()
    };
    let claimed = z.delay_poll(&jobs, options)?;
    let polled: Vec<&str> = claimed.iter().map(|t| t.task.as_str()).collect();
    assert_eq!(polled, ["DELIVERIES", "TASKS", "COUNT", "LEASES"]);
    let leases = [("LEASES", claimed[3].token.unwrap())];
    let ack = DelayAckOptions {
        deliveries: Some(&deliveries),
        ..Default::default()
    };
    assert_eq!(z.delay_ack_leases(&inflight, &leases, ack)?, 1);
    let acked = z.delay_ack(
        &inflight,
        &["DELIVERIES", "TASKS"],
        DelayAckOptions {
            deliveries: Some(&deliveries),
            ..Default::default()
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
        z.delay_nack(
            &k("{jobs}:inflight"),
            &k("{jobs-queue}"),
            "task",
            0,
            DelayNackOptions::default()
        )
        .unwrap_err()
        .kind(),
        ErrorKind::Client
    );
    let deliveries = k("{deliveries}");
    let ack = DelayAckOptions {
        deliveries: Some(&deliveries),
        ..Default::default()
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
            RankMergeOptions {
                weights: Some(&[]),
                ..Default::default()
            },
        )
        .unwrap_err();
    assert_eq!(
        error.detail(),
        Some("RANK.MERGE: weights must not be empty")
    );
    let error = z
        .delay_ack_leases(&k("inflight"), &[], DelayAckOptions::default())
        .unwrap_err();
    assert_eq!(error.detail(), Some("DELAY.ACK: leases must not be empty"));
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
    raw::<i64>(z.connection(), &["ZADD", &k("q"), "5", "t"]);
    let fenced = DelayPollOptions {
        lease: Some((&k("q"), 60000)),
        withtokens: true,
        ..Default::default()
    };
    let claimed = z.delay_poll(&k("q"), fenced).unwrap().remove(0);
    assert_eq!(
        claimed.token,
        raw::<Option<i64>>(z.connection(), &["ZSCORE", &k("q"), "t"])
    );
    assert!(
        z.delay_touch_token(&k("q"), "t", 60000, claimed.token.unwrap())
            .unwrap()
            >= claimed.token.unwrap()
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
    // With RATE: the tasks the window allows, then nothing (the window is
    // spent) until the timeout, as the module replies.
    let _: i64 = raw(
        z.connection(),
        &["ZADD", &queue, "0", "report", "0", "digest"],
    );
    let log = k("{b}:rate");
    let rate = PollRate {
        log: &log,
        window_ms: 60000,
        limit: 1,
    };
    let options = DelayBpollOptions::default();
    assert_eq!(
        z.delay_bpoll_rate(&queue, 5000, rate, options).unwrap(),
        Some(vec![task("digest", 0.0)])
    );
    assert_eq!(
        z.delay_bpoll_rate(&queue, 150, rate, options).unwrap(),
        None
    );
}

/// A Valkey 9 server of its own (ZKIT_TEST_VALKEY, which
/// scripts/suites/test-clients.sh names), killed when dropped.
struct OwnServer(std::process::Child);

impl Drop for OwnServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_server_without_the_module_and_lua_says_so() {
    // Valkey 9's Lua engine is a module: unloaded, FUNCTION LOAD answers
    // "Engine 'lua' not found".
    let valkey = std::env::var("ZKIT_TEST_VALKEY")
        .expect("ZKIT_TEST_VALKEY names a Valkey 9 server; scripts/suites/test-clients.sh sets it");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let folder = std::env::temp_dir().join(format!("zkit-valkey-{}-{port}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let _server = OwnServer(
        std::process::Command::new(valkey)
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
            ])
            .args(["--enable-module-command", "yes", "--dir"])
            .arg(&folder)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let client = redis::Client::open(format!("redis://127.0.0.1:{port}")).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut connection = loop {
        match client.get_connection() {
            Ok(connection) => break connection,
            Err(e) => assert!(
                std::time::Instant::now() < deadline,
                "the server did not start: {e}"
            ),
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    raw::<String>(&mut connection, &["MODULE", "UNLOAD", "lua"]);
    let mut z = Zkit::new(connection);
    let error = z
        .rank_get("board", "alice", RankGetOptions::default())
        .unwrap_err();
    assert_eq!(error.detail(), Some(NOT_LOADED));
    let error = z.load_functions(false).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Client);
    let detail = error.detail().unwrap();
    assert!(detail.starts_with(NO_LUA), "{error}");
    assert!(detail.contains("Engine 'lua' not found"), "{error}");
    std::fs::remove_dir_all(&folder).unwrap();
}
