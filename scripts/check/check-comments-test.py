#!/usr/bin/env python3
"""scripts/check/check-comments.py on small git trees it writes: it passes a tree
whose comments name what exists, and fails one with a stale path, a stale
glob or a stale test name, saying which file and line (make lint runs it)."""

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

CHECKER = Path(__file__).resolve().parent / "check-comments.py"

TREE = {
    "tests/integration/production.rs": "#[test]\nfn every_command_is_versioned() {}\n",
    "functions/lua/rank.lua": "-- The ranks (tests/integration/production.rs).\nlocal x = 1\n",
    "clients/python/src/zkit/client.py": "def rank_gift():\n    pass\n",
    "clients/python/tests/test_gift.py":
        "# Calls src/zkit/client.py's `rank_gift()` (functions/lua/*.lua, `size_t`).\nimport os\n",
    "scripts/gen.sh": "#!/usr/bin/env bash\n# Checked by `every_command_is_versioned` in tests/integration/.\nexit 0\n",
}


def run(tree, *args):
    with tempfile.TemporaryDirectory() as root:
        for path, text in tree.items():
            (Path(root) / path).parent.mkdir(parents=True, exist_ok=True)
            (Path(root) / path).write_text(text)
        subprocess.run(["git", "init", "-q", root], check=True)
        subprocess.run(["git", "-C", root, "add", "."], check=True)
        return subprocess.run([sys.executable, str(CHECKER), "--root", root, *args], capture_output=True, text=True)


class CheckComments(unittest.TestCase):
    def test_a_tree_naming_what_exists_passes(self):
        done = run(TREE)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertEqual(done.stdout, "")

    def test_a_stale_path_fails_with_its_file_and_line(self):
        tree = dict(TREE)
        tree["scripts/gen.sh"] += "# As clients/python/setup.py says.\n"
        done = run(tree)
        self.assertEqual(done.returncode, 1)
        self.assertEqual(done.stdout, "scripts/gen.sh:4: no file or folder clients/python/setup.py\n")

    def test_a_glob_that_matches_nothing_fails(self):
        tree = dict(TREE)
        tree["functions/lua/rank.lua"] += "-- Beside functions/lua/*.py.\n"
        done = run(tree)
        self.assertEqual(done.stdout, "functions/lua/rank.lua:3: no file or folder functions/lua/*.py\n")

    def test_a_renamed_test_fails(self):
        tree = dict(TREE)
        tree["tests/integration/production.rs"] = "#[test]\nfn every_command_is_counted() {}\n"
        done = run(tree)
        self.assertEqual(done.returncode, 1)
        self.assertEqual(done.stdout, "scripts/gen.sh:2: `every_command_is_versioned` is named nowhere in the code\n")

    def test_skipped_files_are_left_out(self):
        tree = dict(TREE)
        tree["scripts/gen.sh"] += "# As clients/python/setup.py says.\n"
        self.assertEqual(run(tree, "--skip", "scripts/gen.sh").returncode, 0)


if __name__ == "__main__":
    unittest.main()
