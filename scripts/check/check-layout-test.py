#!/usr/bin/env python3
"""scripts/check/check-layout.py on small trees it writes: it passes a tree whose
layers import one way, and fails one with a file over the limit, a layer
that imports the one above it, and two files that import each other (a
`use` group included), saying which (make lint runs it)."""

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

CHECKER = Path(__file__).resolve().parent / "check-layout.py"

TREE = {
    "src/lib.rs": "pub mod commands;\npub mod host;\npub mod logic;\npub mod error;\n",
    "src/error.rs": "pub struct ZkitError;\n",
    "src/logic/mod.rs": "pub mod rank;\npub mod score;\n",
    "src/logic/rank.rs": "use super::score::Score;\nuse crate::error::ZkitError;\n",
    "src/logic/score.rs": "pub struct Score;\n#[cfg(test)]\nmod tests {\n    use crate::logic::rank::*;\n}\n",
    "src/host/mod.rs": "pub mod zset;\n",
    "src/host/zset.rs": "pub struct Zset; // not crate::commands::rank\n",
    "src/commands/mod.rs": "pub mod rank;\n",
    "src/commands/rank.rs": "use crate::host::zset::Zset;\nuse crate::logic::{rank, score::Score};\n",
    "clients/rust/src/lib.rs": "pub mod resp;\npub mod replies;\n",
    "clients/rust/src/resp.rs": "pub struct Value;\n",
    "clients/rust/src/replies.rs": "use crate::resp::Value;\n",
}


def run(tree):
    with tempfile.TemporaryDirectory() as root:
        for path, text in tree.items():
            (Path(root) / path).parent.mkdir(parents=True, exist_ok=True)
            (Path(root) / path).write_text(text)
        return subprocess.run([sys.executable, str(CHECKER), root], capture_output=True, text=True)


class CheckLayout(unittest.TestCase):
    def test_a_tree_that_keeps_the_layout_passes(self):
        out = run(TREE)
        self.assertEqual(out.returncode, 0, out.stdout)

    def test_a_file_over_the_limit_fails(self):
        out = run({**TREE, "src/logic/score.rs": "pub struct Score;\n" + "\n" * 1501})
        self.assertEqual(out.returncode, 1)
        self.assertIn("src/logic/score.rs: 1502 lines, over 1500", out.stdout)

    def test_a_layer_that_imports_the_one_above_fails(self):
        out = run({**TREE, "src/host/zset.rs": "use crate::commands::rank;\npub struct Zset;\n"})
        self.assertEqual(out.returncode, 1)
        self.assertIn("zset.rs: the host layer imports commands::rank", out.stdout)

    def test_files_that_import_each_other_fail(self):
        out = run({**TREE, "src/logic/score.rs": "use super::{rank::Rank, rank};\npub struct Score;\n"})
        self.assertEqual(out.returncode, 1)
        self.assertIn("in a circle: src/logic/rank.rs, src/logic/score.rs", out.stdout)
        out = run({**TREE, "clients/rust/src/resp.rs": "use crate::replies::*;\npub struct Value;\n"})
        self.assertEqual(out.returncode, 1)
        self.assertIn("in a circle: src/replies.rs, src/resp.rs", out.stdout)


if __name__ == "__main__":
    unittest.main()
