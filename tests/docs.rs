//! The reference in docs/commands.md covers every command the module
//! registers, with the flags the server reports.

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
