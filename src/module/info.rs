//! The `INFO zkit` section: what commandstats does not already say. Every
//! field is documented in docs/commands.md ("INFO zkit").

use crate::commands::{self, tiebreak::tiebreak_clock};
use crate::host;
use crate::host::info::InfoSink;

pub fn write(sink: &mut InfoSink) {
    sink.section("");
    sink.field_str("version", env!("CARGO_PKG_VERSION"));
    let (start, end) = tiebreak_clock().window();
    sink.field_i64("tiebreak_window_start_ms", start);
    sink.field_i64("tiebreak_window_end_ms", end);
    sink.field_u64("blocked_clients", host::block::blocked_clients());
    let hot_sets = commands::layout::hot_sets() as u64;
    sink.field_u64("hot_sets", hot_sets);
    // Deprecated: `hot_sets`'s name before 0.5.0, kept for one release with
    // the same value so that dashboards reading it keep working.
    sink.field_u64("hot_boards", hot_sets);
    let missing: Vec<&str> = host::call::Native::ALL
        .into_iter()
        .filter(|native| !native.is_available())
        .map(host::call::Native::text)
        .collect();
    sink.field_str("unavailable_commands", &missing.join(","));
    for (name, counter) in commands::COUNTERS {
        sink.field_u64(name, counter.get());
    }
    // The cap the seen-key counts in dashboards are measured against: a
    // config, but scripts (redis_exporter's) may read INFO and not CONFIG.
    sink.field_i64("idmp_max_ids", commands::idmp::MAX_IDS.get());
    let gate = host::gate::write_gate_counts();
    sink.field_u64("write_gate_postponed_clients", gate.postponed_clients);
    sink.field_u64("write_gate_refused_claims", gate.refused_claims);
    sink.field_u64("write_gate_probes_run", gate.probes_run);
}
