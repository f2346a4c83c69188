#!/usr/bin/env python3
"""README's example blocks are the tested files, byte for byte.

Each block is written as

    <!-- include: clients/python/examples/gift_board.py -->
    ```python
    ...the file...
    ```
    <!-- end include -->

and this check fails unless the fenced text equals the file, and unless
every example file is included somewhere.
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
BLOCK = re.compile(
    r"<!-- include: (?P<path>\S+) -->\n```\w*\n(?P<body>.*?)```\n<!-- end include -->",
    re.DOTALL,
)
EXAMPLE_DIRS = ["clients/python/examples", "clients/node/examples"]


def main() -> int:
    readme = (ROOT / "README.md").read_text()
    problems = []
    included = set()
    for block in BLOCK.finditer(readme):
        path = block["path"]
        included.add(path)
        file = ROOT / path
        if not file.is_file():
            problems.append(f"README includes {path}, which does not exist")
        elif file.read_text() != block["body"]:
            problems.append(f"README's copy of {path} differs from the file")
    if readme.count("<!-- include:") != len(included):
        problems.append("an include marker has no well-formed block (or a file is included twice)")
    for folder in EXAMPLE_DIRS:
        for file in sorted((ROOT / folder).iterdir()):
            path = f"{folder}/{file.name}"
            if path not in included:
                problems.append(f"{path} is not included in README")
    for problem in problems:
        print(f"check-readme-includes: {problem}", file=sys.stderr)
    print(f"check-readme-includes: {len(included)} blocks, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
