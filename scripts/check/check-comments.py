#!/usr/bin/env python3
"""make lint: the comments of the tracked code name only what exists.

Every repository path a comment names (src/..., tests/..., scripts/...,
docs/..., functions/..., clients/..., bench/..., observe/..., console/...,
packaging/..., and a package's own test/...) must be a tracked file or
folder, or match one where it is a glob (functions/lua/*.lua), from the
repository root or from a folder the commenting file is in (a client's
comment says src/zkit/client.py). Every backticked function or test name
(`snake_case_name`, `name()`, `module::name`) must be a name the code uses
outside comments: a comment left naming a renamed test, function or file
fails here, not in a reader's search.

    python3 scripts/check/check-comments.py          the tracked tree, from its root
    python3 scripts/check/check-comments.py FILE...  those files only (the tree's
                                                     names still count)
    --root DIR                                       the git tree at DIR instead
    --skip FILE...                                   leave these files' comments
                                                     out (scripts/check/lint.sh's files
                                                     under edit)

Prints each stale name as FILE:LINE: ... and exits 1 if there is one.
"""

from __future__ import annotations

import fnmatch
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: The comment marker of each kind of code file, by suffix or by name.
LINE_COMMENTS = {
    ".rs": "//", ".ts": "//", ".mjs": "//", ".js": "//", ".c": "//",
    ".py": "#", ".sh": "#", ".toml": "#", ".yml": "#", ".yaml": "#",
    ".lua": "--",
}
BY_NAME = {"Makefile": "#", "run": "#", "zkit-healthcheck": "#", ".shellcheckrc": "#", ".luacheckrc": "--"}
#: Written by generators from other files, whose comments are checked there.
GENERATED = {
    "functions/zkit.lua",
    "clients/python/src/zkit/commands.py", "clients/python/src/zkit/replies.py",
    "clients/node/src/table.ts", "clients/node/src/replies.ts",
    "clients/rust/src/commands.rs", "clients/rust/src/replies.rs",
}

TOP_FOLDERS = "src|tests|scripts|docs|functions|clients|bench|observe|console|packaging|test"
PATH = re.compile(rf"(?<![\w./-])(?:{TOP_FOLDERS})/[\w.*/-]*")
NAME = re.compile(r"`([A-Za-z_][\w]*(?:(?:::|\.)[A-Za-z_]\w*)*)(\(\))?`")
WORD = re.compile(r"[A-Za-z_]\w*")


def comment_marker(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1]
    if name in BY_NAME:
        return BY_NAME[name]
    suffix = "." + name.rsplit(".", 1)[-1] if "." in name else ""
    return LINE_COMMENTS.get(suffix)


def split_line(line: str, marker: str) -> tuple[str, str]:
    """A line's code and its comment: a comment starts the line (after
    indentation) or follows code after a space; a marker inside a string
    is taken for one only when a space follows it."""
    stripped = line.lstrip()
    for start in (m.start() for m in re.finditer(re.escape(marker), line)):
        if line[:start].strip() == "" or (line[start - 1] in " \t" and line[start + len(marker):][:1] in " !/\n"):
            if stripped.startswith("#!") and marker == "#" and line[:start].strip() == "":
                return "", ""  # a shebang
            return line[:start], line[start + len(marker):]
    return line, ""


def is_checked_name(name: str, called: bool) -> bool:
    """A backticked word is taken for a function or test name when it is
    called (`name()`), a path (`module::name`, `rt.init`), or snake_case
    with a lowercase start (`every_command_is_documented`); a name ending
    in _t is C's type (`size_t`)."""
    if name.endswith("_t"):
        return False
    if called or "::" in name:
        return True
    last = name.rsplit(".", 1)[-1]
    return "." not in name and "_" in last.strip("_") and last == last.lower() and last[0].isalpha()


def main(argv: list[str]) -> int:
    root, skipped, files = ROOT, set(), []
    args = iter(argv)
    for arg in args:
        if arg == "--root":
            root = Path(next(args))
        elif arg == "--skip":
            skipped.update(a.removeprefix("./") for a in args)
        else:
            files.append(arg.removeprefix("./"))
    tracked = subprocess.run(["git", "ls-files"], cwd=root, check=True, capture_output=True,
                             text=True).stdout.splitlines()
    existing = set(tracked)
    folders = {str(Path(p).parents[i]) for p in tracked for i in range(len(Path(p).parents) - 1)}
    sources = {p: comment_marker(p) for p in tracked if comment_marker(p) and (root / p).is_file()}

    comments: dict[str, list[tuple[int, str]]] = {}
    code_words: set[str] = set()
    for path, marker in sources.items():
        try:
            text = (root / path).read_text()
        except UnicodeDecodeError:
            continue
        lines = comments.setdefault(path, [])
        for number, line in enumerate(text.splitlines(), 1):
            code, comment = split_line(line, marker)
            code_words.update(WORD.findall(code))
            if comment and path not in GENERATED:
                lines.append((number, comment))
    # Docs and other tracked text use names too (a config field, a metric);
    # only comments do not count.
    for path in tracked:
        if path not in sources and path.endswith((".md", ".json", ".yml", ".yaml", ".rules")):
            code_words.update(WORD.findall((root / path).read_text(errors="replace")))

    def path_exists(named: str, where: str) -> bool:
        named = named.rstrip(".")
        bases = [""] + [str(p) + "/" for p in Path(where).parents if str(p) != "."]
        for base in bases:
            full = (base + named).rstrip("/")
            if any(c in full for c in "*?["):
                if fnmatch.filter(tracked, full) or fnmatch.filter(folders, full):
                    return True
            elif full in existing or full in folders:
                return True
        return False

    checked = [p for p in files or sorted(comments) if p not in skipped]
    stale = []
    for path in checked:
        for number, comment in comments.get(path, []):
            for named in PATH.findall(comment):
                if named.rstrip("./") and not path_exists(named, path):
                    stale.append(f"{path}:{number}: no file or folder {named.rstrip('.')}")
            for name, called in NAME.findall(comment):
                if is_checked_name(name, bool(called)):
                    last = re.split(r"::|\.", name)[-1]
                    if last not in code_words:
                        stale.append(f"{path}:{number}: `{name}{called}` is named nowhere in the code")
    for line in stale:
        print(line)
    if stale:
        print(f"check-comments: {len(stale)} stale name(s) in comments (above)", file=sys.stderr)
        return 1
    print(f"check-comments: every path and function or test name in the comments of {len(checked)} files exists",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
