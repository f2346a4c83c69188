#!/usr/bin/env python3
"""README's example blocks are the tested files, byte for byte.

Each block is written as

    <!-- include: clients/python/examples/gift_board.py -->
    ```python
    ...the file...
    ```
    <!-- end include -->

and this check fails unless the fenced text equals the file, and unless
every example file is included somewhere. With --write it first copies
each included file into its block.
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


def refresh(readme: str) -> str:
    """README with every block's text replaced by its file's."""

    def copy(block: "re.Match[str]") -> str:
        file = ROOT / block["path"]
        if not file.is_file():
            return block[0]
        fence = block[0][: block[0].index("\n", block[0].index("```")) + 1]
        return f"{fence}{file.read_text()}```\n<!-- end include -->"

    return BLOCK.sub(copy, readme)


def main() -> int:
    readme = (ROOT / "README.md").read_text()
    if sys.argv[1:] == ["--write"]:
        readme = refresh(readme)
        (ROOT / "README.md").write_text(readme)
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
