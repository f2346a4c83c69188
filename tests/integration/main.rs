//! The integration suite: one test binary (`cargo test --test integration`),
//! so the harness in `common` compiles once. Each module tests one family or
//! one concern against real servers with zkit loaded; `common/mod.rs` says
//! how servers are started and which environment picks the server binary and
//! the module.

mod common;

mod arguments;
mod ascending;
mod chaos;
mod clients;
mod cluster;
mod columns;
mod commands_json;
mod delay;
mod dense_ranks;
mod diskless_load;
mod docs;
mod families;
mod feed;
mod functions;
mod fuzz;
mod groups;
mod idmp;
mod jobs;
mod keywords;
mod lanes;
mod list_costs;
mod member_data;
mod merge;
mod production;
mod rank;
mod rate;
mod rated_polls;
mod recent;
mod renamed_commands;
mod schedules;
mod seasons;
mod slot_migration;
mod small_boards;
mod stats;
mod upgrade;
mod vote;
mod write_gate;
