//! The docs against the server: docs/commands.md covers every command the module
//! registers, with the flags the server reports, and README's transcripts
//! print what the server answers.

mod common;

use common::*;

#[test]
fn every_registered_command_is_documented() {
    let server = Server::start();
    let mut con = server.connect();
    let mut names: Vec<String> =
        query(&mut con, &["COMMAND", "LIST", "FILTERBY", "MODULE", "zkit"]);
    names.sort();
    assert!(names.len() >= 6, "{names:?}");
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/commands.md"))
        .expect("docs/commands.md");
    for name in &names {
        let heading = format!("\n### {}\n", name.to_uppercase());
        assert!(
            docs.contains(&heading),
            "docs/commands.md has no section {heading:?}"
        );
        let summary: Vec<Value> = query(&mut con, &["COMMAND", "DOCS", name]);
        let text = format!("{summary:?}");
        assert!(
            text.contains("summary"),
            "{name} has no summary in COMMAND DOCS"
        );
    }
}

/// README's redis-cli walk-throughs whose replies do not depend on the clock
/// (the leaderboard blocks on `gifts:room:42` and `{room42}`, the job queue
/// block that schedules `{jobs}`, the recently-viewed and feed blocks), replayed
/// through redis-cli against a fresh server: every reply must print as README
/// shows it, except the times (unix ms) and the scores that encode them,
/// which differ from run to run. The RATE and VOTE blocks are left out: their
/// replies hold waits measured from now and a vote window relative to today.
#[test]
fn readme_transcripts_replay_as_shown() {
    let server = Server::start();
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let replayable = [
        "gifts:room:42",
        "{room42}",
        "DELAY.POLL {jobs} COUNT 10",
        "RECENT.ADD MemberRecentGoods:66",
        "FEED.PAGE feed:user:7",
    ];
    let blocks: Vec<&str> = readme
        .split("```")
        .skip(1)
        .step_by(2)
        .filter(|block| {
            block.contains("127.0.0.1:6379> ")
                && replayable.iter().any(|marker| block.contains(marker))
        })
        .collect();
    assert_eq!(
        blocks.len(),
        5,
        "two leaderboard blocks, the job queue, recently viewed and the feed"
    );
    let mut replayed = 0;
    for block in blocks {
        let mut lines = block.lines().peekable();
        while let Some(line) = lines.next() {
            let Some(command) = line.strip_prefix("127.0.0.1:6379> ") else {
                continue;
            };
            let mut expected = Vec::new();
            while let Some(next) = lines.next_if(|l| !l.starts_with("127.0.0.1:6379> ")) {
                if !next.trim().is_empty() {
                    expected.push(normalized(next));
                }
            }
            let output = std::process::Command::new("redis-cli")
                .args(["-p", &server.port.to_string(), "--no-raw"])
                .args(without_comment(command).split_whitespace())
                .output()
                .expect("redis-cli runs");
            let got: Vec<String> = String::from_utf8_lossy(&output.stdout)
                .lines()
                .map(normalized)
                .collect();
            assert_eq!(got, expected, "{command}");
            replayed += 1;
        }
    }
    assert!(replayed >= 29, "{replayed} commands replayed");
}

/// A transcript line without its `# ...` note.
fn without_comment(line: &str) -> &str {
    line.find("  #").map_or(line, |i| &line[..i]).trim_end()
}

/// A reply line with times (13 digits and more) and quoted fractional
/// scores replaced by placeholders.
fn normalized(line: &str) -> String {
    without_comment(line)
        .split(' ')
        .map(|word| {
            let digits = word.trim_matches('"');
            if digits.len() >= 13 && digits.bytes().all(|b| b.is_ascii_digit()) {
                "<unix-ms>".to_string()
            } else if word.starts_with('"') && digits.parse::<f64>().is_ok() && digits.contains('.')
            {
                "<score>".to_string()
            } else {
                word.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
