//! The docs against the server: docs/commands.md covers every command the
//! module registers; every redis-cli transcript in README and on the docs
//! site prints what the server answers; the operating guide shows the module
//! version the server reports.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::common::client::{cmdline, ok, query, run};
use crate::common::data::{server_time_ms, wait_until_server_time};
use crate::common::{load_library, Server};
use redis::{Connection, Value};

const PROMPT: &str = "127.0.0.1:6379> ";
/// Written in the text before a transcript the test must not replay, with
/// the reason after it: `<!-- replay: skip (state of a running queue) -->`.
const SKIP_MARKER: &str = "<!-- replay: skip";
/// Ends a reply line's note when the value depends on the clock (a wait
/// measured from now): the line must still be there, of the same shape.
const VARIES: &str = "(varies)";
/// Written on a page whose every transcript stands alone: each is replayed
/// on an empty database, as a reader would paste it into a fresh server.
const EACH_BLOCK_ALONE: &str = "<!-- replay: each block on an empty server -->";
/// The commands the transcripts held when this was last counted (README 4,
/// docs/commands.md 192, docs/delivery.md 3, docs/index.md 4, the six guides
/// 68, docs/functions.md 4): fewer means a transcript stopped being
/// replayed. A new command's example needs no raise: every command's
/// section must show it in a transcript (every_registered_command_is_documented).
const REPLAYED_AT_LEAST: usize = 275;

#[test]
fn every_registered_command_is_documented() {
    let server = Server::start();
    let mut con = server.connect();
    let mut names: Vec<String> =
        query(&mut con, &["COMMAND", "LIST", "FILTERBY", "MODULE", "zkit"]);
    names.sort();
    assert!(names.len() >= 6, "{names:?}");
    let docs = read(&repo_path("docs/commands.md"));
    for name in &names {
        let heading = format!("\n### {}\n", name.to_uppercase());
        let Some((_, after)) = docs.split_once(&heading) else {
            panic!("docs/commands.md has no section {heading:?}");
        };
        // Its section shows it in a transcript (which
        // doc_transcripts_replay_as_shown replays), so that a new command's
        // example needs no count raised to be held to the server.
        let section = after.split("\n### ").next().unwrap_or_default();
        let called = format!("{PROMPT}{} ", name.to_uppercase());
        assert!(
            section.to_uppercase().contains(&called),
            "docs/commands.md's section {heading:?} shows no call of it in a transcript"
        );
        let summary: Vec<Value> = query(&mut con, &["COMMAND", "DOCS", name]);
        let text = format!("{summary:?}");
        assert!(
            text.contains("summary"),
            "{name} has no summary in COMMAND DOCS"
        );
    }
}

/// Every redis-cli transcript in README and in the site's pages, replayed
/// through redis-cli, one fresh server per page, blocks in page order, each
/// command on a later millisecond of the server's clock than the one before
/// (as when typed, so first-come ties never depend on how fast the test
/// runs): every reply must print as the page shows it, except:
/// - times in unix ms (13 digits and more) that the server's clock chose,
///   and the fractional scores that encode them, which differ from run to
///   run (a time in ms the transcript gave, a due time, is compared);
/// - reply lines whose note ends in "(varies)" (a wait measured from now):
///   only their shape is compared;
/// - a time in ms the server chose that a later command of the transcript
///   sends back (a lease's token) is sent as the server chose it;
/// - times in unix seconds (10 digits, 2023-2030): the first one met is
///   taken as "now" and every one is shifted by the same amount, so a
///   walk-through with a time window (VOTE) never expires.
///
/// A page that says [`EACH_BLOCK_ALONE`] (the command reference, where a
/// reader jumps to one command's example) replays every block on an empty
/// database with its own "now", as when pasted into a fresh server.
/// Transcripts after a `<!-- replay: skip (why) -->` marker are left out
/// and counted; every prompt on a page is either replayed or in such a
/// block.
#[test]
fn doc_transcripts_replay_as_shown() {
    let mut pages = vec![repo_path("README.md")];
    pages.extend(markdown_files(&repo_path("docs")));
    let mut replayed = 0;
    let mut skipped_blocks = Vec::new();
    let mut pages_replayed = 0;
    for page in &pages {
        let text = read(page);
        let prompts = text.matches(PROMPT).count();
        if prompts == 0 {
            continue;
        }
        let name = page
            .strip_prefix(repo_path(""))
            .unwrap()
            .display()
            .to_string();
        let each_block_alone = text.contains(EACH_BLOCK_ALONE);
        // The module, and the Functions library for the pages that call it
        // (docs/functions.md).
        let server = Server::start();
        let mut con = server.connect();
        load_library(&mut con);
        let mut replay = Replay {
            port: server.port,
            shift: None,
            given_ms: HashSet::new(),
            chosen_ms: HashMap::new(),
            last_command_ms: 0,
            con,
        };
        let segments: Vec<&str> = text.split("```").collect();
        let mut on_page = 0;
        let mut skipped_prompts = 0;
        for (i, block) in segments.iter().enumerate().skip(1).step_by(2) {
            if !block.contains(PROMPT) {
                continue;
            }
            let before = segments[i - 1];
            let last_paragraph = before.rsplit("\n\n").next().unwrap_or("");
            if last_paragraph.contains(SKIP_MARKER) {
                skipped_blocks.push(format!("{name}: {}", first_command(block)));
                skipped_prompts += block.matches(PROMPT).count();
                continue;
            }
            if each_block_alone {
                replay.start_afresh();
            }
            on_page += replay.block(&name, block);
        }
        // A prompt outside a block, indented, or in a block left open
        // would otherwise go unreplayed without a word.
        assert_eq!(
            on_page + skipped_prompts,
            prompts,
            "{name}: {prompts} prompts on the page, {on_page} replayed, {skipped_prompts} \
             in skipped blocks"
        );
        eprintln!("{name}: {on_page} commands replayed");
        replayed += on_page;
        pages_replayed += 1;
    }
    eprintln!(
        "{replayed} commands replayed on {pages_replayed} pages; blocks left out: \
         {skipped_blocks:?}"
    );
    // README's taste, the home page's copy, the six guides, delivery and
    // the command reference.
    assert!(pages_replayed >= 10, "{pages_replayed} pages replayed");
    assert!(
        replayed >= REPLAYED_AT_LEAST,
        "{replayed} commands replayed"
    );
    assert!(skipped_blocks.len() <= 1, "{skipped_blocks:?}");
}

/// The rolling-install and install steps show the `ver` that MODULE LIST
/// reports for this build.
#[test]
fn operating_guide_shows_the_module_version_the_server_reports() {
    let server = Server::start();
    let mut con = server.connect();
    let modules: Vec<std::collections::HashMap<String, Value>> =
        query(&mut con, &["MODULE", "LIST"]);
    let zkit = modules
        .iter()
        .find(|m| m["name"] == Value::BulkString(b"zkit".to_vec()))
        .expect("zkit in MODULE LIST");
    let Value::Int(ver) = zkit["ver"] else {
        panic!("ver: {:?}", zkit["ver"]);
    };
    let guide = read(&repo_path("docs/operating.md"));
    // `ver 300` in a transcript's note, `` `ver` 300 `` in the text.
    let shown: Vec<i64> = ["ver ", "`ver` "]
        .iter()
        .flat_map(|form| guide.match_indices(form))
        .filter_map(|(at, form)| {
            let digits: String = guide[at + form.len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
        })
        .collect();
    assert!(!shown.is_empty(), "docs/operating.md shows no `ver N`");
    assert!(
        shown.iter().all(|&v| v == ver),
        "shown {shown:?}, server says {ver}"
    );
    assert!(
        guide.contains(&format!("(integer) {ver}  ")),
        "the MODULE LIST reply in docs/operating.md does not show ver {ver}"
    );
}

/// One page's replay: its server and its time shift.
struct Replay {
    port: u16,
    /// Seconds added to every unix-seconds time on the page (in the block,
    /// on a page of blocks that stand alone), fixed by the first one met.
    shift: Option<i64>,
    /// The unix-ms times the transcript gave the server (due times): a
    /// reply that shows one is compared exactly.
    given_ms: HashSet<String>,
    /// The unix-ms times the server chose in a reply (a lease's token), by
    /// the value the page shows: a later command sends the server's.
    chosen_ms: HashMap<String, String>,
    /// The server's clock when the last command had answered.
    last_command_ms: i64,
    con: Connection,
}

impl Replay {
    /// Empties the server and forgets the time shift: the next block runs
    /// as if pasted into a fresh server now.
    fn start_afresh(&mut self) {
        ok(&mut self.con, &["FLUSHALL"]);
        self.shift = None;
        self.given_ms.clear();
        self.chosen_ms.clear();
    }

    /// Replays one transcript; returns how many commands ran.
    fn block(&mut self, page: &str, block: &str) -> usize {
        let mut replayed = 0;
        let mut lines = block.lines().peekable();
        while let Some(line) = lines.next() {
            let Some(command) = line.strip_prefix(PROMPT) else {
                continue;
            };
            let mut expected = Vec::new();
            while let Some(next) = lines.next_if(|l| !l.starts_with(PROMPT)) {
                if !next.trim().is_empty() {
                    expected.push(next);
                }
            }
            let words: Vec<String> = without_comment(command)
                .split_whitespace()
                .map(|word| self.shifted(word))
                .collect();
            self.given_ms
                .extend(words.iter().filter(|w| is_unix_ms(w)).cloned());
            // Typed commands land on different milliseconds; so do these.
            wait_until_server_time(&mut self.con, self.last_command_ms + 1);
            let output = std::process::Command::new("redis-cli")
                .args(["-p", &self.port.to_string(), "--no-raw"])
                .args(&words)
                .output()
                .expect("redis-cli runs");
            self.last_command_ms = server_time_ms(&mut self.con);
            let mut got: Vec<String> = String::from_utf8_lossy(&output.stdout)
                .lines()
                .map(|l| self.normalized(l))
                .collect();
            let mut want: Vec<String> = expected
                .iter()
                .map(|l| {
                    let shifted = self.shifted_line(without_comment(l));
                    self.normalized(&shifted)
                })
                .collect();
            if got.len() == want.len() {
                for (i, line) in expected.iter().enumerate() {
                    if note(line).is_some_and(|n| n.ends_with(VARIES)) {
                        want[i] = shape(&want[i]);
                        got[i] = shape(&got[i]);
                    }
                }
            }
            assert_eq!(got, want, "{page}: {command}");
            self.remember_chosen_ms(&expected, &String::from_utf8_lossy(&output.stdout));
            replayed += 1;
        }
        replayed
    }

    /// The times in ms the server chose in a reply, by the values the page
    /// shows in their place.
    fn remember_chosen_ms(&mut self, expected: &[&str], output: &str) {
        for (shown, got) in expected.iter().zip(output.lines()) {
            let shown = without_comment(shown).split(' ');
            for (shown, got) in shown.zip(got.split(' ')) {
                let (shown, got) = (shown.trim_matches('"'), got.trim_matches('"'));
                if is_unix_ms(shown) && is_unix_ms(got) && !self.given_ms.contains(shown) {
                    self.chosen_ms.insert(shown.to_string(), got.to_string());
                }
            }
        }
    }

    /// A word with its unix-seconds time, if it is one, moved by the
    /// shift (the first such time met becomes the server's now); a time in
    /// ms the server chose earlier, as it chose it.
    fn shifted(&mut self, word: &str) -> String {
        if let Some(chosen) = self.chosen_ms.get(word) {
            return chosen.clone();
        }
        let digits = word.trim_matches('"');
        let is_seconds = digits.len() == 10
            && digits.bytes().all(|b| b.is_ascii_digit())
            && ("1700000000".."1900000000").contains(&digits);
        if !is_seconds {
            return word.to_string();
        }
        let time: i64 = digits.parse().unwrap();
        let shift = *self
            .shift
            .get_or_insert_with(|| server_time_ms(&mut self.con) / 1000 - time);
        word.replace(digits, &(time + shift).to_string())
    }

    /// A line of the page with every unix-seconds time shifted.
    fn shifted_line(&mut self, line: &str) -> String {
        line.split(' ')
            .map(|word| self.shifted(word))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A reply line without its note, with the times in ms that the
    /// server's clock chose and quoted fractional scores replaced by
    /// placeholders.
    fn normalized(&self, line: &str) -> String {
        without_comment(line)
            .split(' ')
            .map(|word| {
                let digits = word.trim_matches('"');
                if is_unix_ms(digits) && !self.given_ms.contains(digits) {
                    "<unix-ms>".to_string()
                } else if word.starts_with('"')
                    && digits.parse::<f64>().is_ok()
                    && digits.contains('.')
                {
                    "<score>".to_string()
                } else {
                    word.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Whether a word is a time in unix ms (13 digits and more).
fn is_unix_ms(word: &str) -> bool {
    word.len() >= 13 && word.bytes().all(|b| b.is_ascii_digit())
}

/// A line's `# ...` note.
fn note(line: &str) -> Option<&str> {
    line.find("  #")
        .map(|i| line[i..].trim_start().trim_start_matches('#').trim())
}

/// A transcript line without its `# ...` note.
fn without_comment(line: &str) -> &str {
    line.find("  #").map_or(line, |i| &line[..i]).trim_end()
}

/// A reply line with its value (the last word) replaced by its kind.
fn shape(line: &str) -> String {
    let (head, value) = line.rsplit_once(' ').unwrap_or(("", line));
    let kind = if value.parse::<i64>().is_ok() {
        "<integer>"
    } else {
        "<value>"
    };
    format!("{head} {kind}")
}

fn first_command(block: &str) -> &str {
    block
        .lines()
        .find_map(|l| l.strip_prefix(PROMPT))
        .unwrap_or_default()
}

fn repo_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every .md file under `dir`, sorted.
fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(markdown_files(&path));
        } else if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The operating guide's read-only ACL user denies every zkit write (on
/// Redis 7.0 module commands have no ACL categories, so the example names
/// each one) and none of the reads.
#[test]
fn operating_guide_acl_example_denies_every_zkit_write() {
    let server = Server::start();
    let mut con = server.connect();
    let guide = read(&repo_path("docs/operating.md"));
    let setuser = guide
        .lines()
        .find(|line| line.starts_with("ACL SETUSER reporting "))
        .expect("the reporting user's ACL SETUSER line");
    ok(&mut con, &cmdline(setuser));
    let commands: Vec<String> = query(&mut con, &cmdline("COMMAND LIST FILTERBY MODULE zkit"));
    let mut writes = 0;
    for command in commands {
        let info: Vec<Value> = query(&mut con, &["COMMAND", "INFO", &command]);
        let flags = format!("{:?}", info[0]);
        // Enough arguments for the arity, which ACL DRYRUN checks first.
        let Value::Array(info) = &info[0] else {
            panic!("COMMAND INFO {command}: {info:?}")
        };
        let Value::Int(arity) = info[1] else {
            panic!("COMMAND INFO {command}: {info:?}")
        };
        let mut words = vec!["ACL", "DRYRUN", "reporting", &command];
        words.extend(std::iter::repeat_n("1", arity.unsigned_abs() as usize - 1));
        let dry_run = run(&mut con, &words);
        if flags.contains("\"write\"") {
            writes += 1;
            assert!(
                matches!(&dry_run, Ok(Value::BulkString(denied)) if String::from_utf8_lossy(denied).contains("no permissions to run")),
                "{command} is a write the example lets through: {dry_run:?}"
            );
        } else {
            assert!(
                matches!(&dry_run, Ok(Value::Okay) | Ok(Value::SimpleString(_))),
                "{command} is a read the example denies: {dry_run:?}"
            );
        }
    }
    assert!(writes >= 13, "{writes} zkit writes");
}
