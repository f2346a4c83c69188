#!/usr/bin/env python3
"""The docs' example blocks are the tested files, byte for byte.

Each block in a page under docs/ is written as

    <!-- include: clients/python/examples/gift_board.py -->
    ```python
    ...the file...
    ```
    <!-- end include -->

and this check fails unless the fenced text equals the file, and unless
every example file is included on some page. With --write it first copies
each included file into its block.
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
BLOCK = re.compile(
    r"<!-- include: (?P<path>\S+) -->\n```\w*\n(?P<body>.*?)```\n<!-- end include -->",
    re.DOTALL,
)
EXAMPLE_DIRS = ["clients/python/examples", "clients/node/examples", "clients/rust/examples"]


def refresh(page: str) -> str:
    """The page with every block's text replaced by its file's."""

    def copy(block: "re.Match[str]") -> str:
        file = ROOT / block["path"]
        if not file.is_file():
            return block[0]
        fence = block[0][: block[0].index("\n", block[0].index("```")) + 1]
        return f"{fence}{file.read_text()}```\n<!-- end include -->"

    return BLOCK.sub(copy, page)


def main() -> int:
    problems = []
    included = set()
    for page_path in sorted((ROOT / "docs").rglob("*.md")):
        name = page_path.relative_to(ROOT)
        page = page_path.read_text()
        if sys.argv[1:] == ["--write"]:
            page = refresh(page)
            page_path.write_text(page)
        blocks = list(BLOCK.finditer(page))
        for block in blocks:
            path = block["path"]
            if path in included:
                problems.append(f"{name} includes {path}, which another block includes too")
            included.add(path)
            file = ROOT / path
            if not file.is_file():
                problems.append(f"{name} includes {path}, which does not exist")
            elif file.read_text() != block["body"]:
                problems.append(f"{name}'s copy of {path} differs from the file")
        if page.count("<!-- include:") != len(blocks):
            problems.append(f"{name}: an include marker has no well-formed block")
    for folder in EXAMPLE_DIRS:
        for file in sorted((ROOT / folder).iterdir()):
            if file.suffix not in (".py", ".mjs"):
                continue  # __pycache__ and the like
            path = f"{folder}/{file.name}"
            if path not in included:
                problems.append(f"{path} is not included in any page under docs/")
    for problem in problems:
        print(f"check-doc-includes: {problem}", file=sys.stderr)
    print(f"check-doc-includes: {len(included)} blocks, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
