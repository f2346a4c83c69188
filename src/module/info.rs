//! The `INFO zkit` sections: version, tie-break clock, per-command counters.

use crate::commands;
use crate::commands::rank::tiebreak_clock;
use crate::host::InfoSink;

pub fn write(sink: &mut InfoSink) {
    sink.section("");
    sink.field_str("version", env!("CARGO_PKG_VERSION"));
    let (start, end) = tiebreak_clock().window();
    sink.field_i64("tiebreak_window_start_ms", start);
    sink.field_i64("tiebreak_window_end_ms", end);

    sink.section("commands");
    for command in commands::all() {
        sink.dict(
            &command.name.replace('.', "_"),
            &[
                ("calls", command.stats.calls()),
                ("errors", command.stats.errors()),
            ],
        );
    }
}
