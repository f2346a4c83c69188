#!/usr/bin/env python3
"""The layout docs/contributing.md describes, checked (make lint):

- no Rust file of src/ over MAX_LINES lines;
- imports point one way between the layers of src/: `module` uses
  `commands` and `host`, `commands` uses `logic` and `host`, `logic` and
  `host` use nothing of zkit's but themselves (and `error.rs`, which
  every layer may name);
- no file imports another in a circle, in src/ and in each Rust client
  (clients/rust/src): a file's imports are every `crate::` and `super::`
  path in its code (not its inline test module's, a module of its own),
  `use` groups expanded, resolved to the file that defines the module
  named.

usage: scripts/check/check-layout.py [ROOT]   (prints what is wrong, exits 1)
"""

import re
import sys
from pathlib import Path

MAX_LINES = 1500
# What each layer of src/ may import (besides itself and the crate root's
# error.rs).
LAYERS = {
    "module": {"commands", "host", "logic"},
    "commands": {"logic", "host"},
    "logic": set(),
    "host": set(),
}
SHARED = {"error"}


def code_of(text):
    """The text without comments and string literals (which may name paths)."""
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def without_test_modules(code):
    """The code without its inline `#[cfg(test)] mod name { ... }`: a test
    module is a module of its own (file::tests), whose imports (the shared
    test fixtures) are not the file's."""
    out, at = [], 0
    for match in re.finditer(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{", code):
        if match.start() < at:
            continue
        out.append(code[at:match.start()])
        depth, i = 1, match.end()
        while depth and i < len(code):
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            i += 1
        at = i
    out.append(code[at:])
    return "".join(out)


def expand(path):
    """`a::{b, c::{d, e}}` -> ["a::b", "a::c::d", "a::c::e"]."""
    path = re.sub(r"\s+", "", path)
    match = re.match(r"^(.*?)::\{(.*)\}$", path)
    if not match:
        return [path]
    head, body = match.groups()
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    return [full for part in parts if part for full in expand(f"{head}::{part}")]


def module_of(file, root):
    """A file's module path under its crate's root: src/commands/rank.rs ->
    ["commands", "rank"]; a mod.rs is its folder's module."""
    parts = list(file.relative_to(root).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return parts


def imports(file, root, modules):
    """The modules (as tuples) that the file's code names."""
    here = module_of(file, root)
    code = without_test_modules(code_of(file.read_text()))
    paths = []
    for statement in re.findall(r"\buse\s+([^;]+);", code):
        paths += expand(statement.split(" as ")[0])
    paths += re.findall(r"\b(?:crate|super)(?:::\w+)+", code)
    found = set()
    for path in paths:
        words = path.split("::")
        if words[0] == "crate":
            absolute = words[1:]
        elif words[0] == "super":
            # super:: is the parent of the file's module (a mod.rs's own
            # module counts as the file's).
            base = here[:-1]
            words = words[1:]
            while words and words[0] == "super":
                base, words = base[:-1], words[1:]
            absolute = base + words
        else:
            continue
        # The longest prefix that is a module of the crate.
        for n in range(len(absolute), 0, -1):
            if tuple(absolute[:n]) in modules:
                if tuple(absolute[:n]) != tuple(here):
                    found.add(tuple(absolute[:n]))
                break
    return found


def circles(graph):
    """Each circle of the graph once, as a list of nodes."""
    out, seen = [], set()
    index, low, stack, on_stack, counter = {}, {}, [], set(), [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1 and frozenset(component) not in seen:
                seen.add(frozenset(component))
                out.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def check_crate(root, problems, layered):
    files = sorted(root.rglob("*.rs"))
    modules = {tuple(module_of(f, root)): f for f in files}
    graph = {}
    for file in files:
        here = tuple(module_of(file, root))
        graph[here] = imports(file, root, modules)
        if layered and here and here[0] in LAYERS:
            for target in graph[here]:
                layer = target[0]
                if layer != here[0] and layer not in LAYERS[here[0]] and layer not in SHARED:
                    problems.append(f"{file}: the {here[0]} layer imports {'::'.join(target)}")
    for circle in circles(graph):
        names = ", ".join(str(modules[m].relative_to(root.parent)) for m in circle)
        problems.append(f"{root}: files that import each other in a circle: {names}")


def main():
    top = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
    problems = []
    for file in sorted((top / "src").rglob("*.rs")):
        lines = file.read_text().count("\n")
        if lines > MAX_LINES:
            problems.append(f"{file.relative_to(top)}: {lines} lines, over {MAX_LINES}: split it by concern")
    check_crate(top / "src", problems, layered=True)
    for client in sorted((top / "clients").glob("*/src")):
        if any(client.rglob("*.rs")):
            check_crate(client, problems, layered=False)
    for problem in problems:
        print(f"check-layout: {problem}")
    if problems:
        return 1
    print("check-layout: no file over the limit, the layers import one way, no import circle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
