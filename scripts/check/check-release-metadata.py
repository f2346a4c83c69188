#!/usr/bin/env python3
"""What a release publishes names one version and one repository: those of
the module's Cargo.toml at the repository root.

Checked against them: the three client packages (PyPI zkit-redis, npm zkit,
crates.io zkit-client: version, license, repository, description, keywords,
readme), the npm and Cargo lock files, the console's version, and every container image reference
(ghcr.io/<owner>/zkit..., the owner the repository's) in the Kubernetes
values under packaging/kubernetes and in the docs.

    scripts/check/check-release-metadata.py            check; non-zero on a mismatch
    scripts/check/check-release-metadata.py --write    first set every version to the module's
"""

import json
import pathlib
import re
import sys

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    sys.exit("check-release-metadata: needs Python 3.11 or later (tomllib)")

ROOT = pathlib.Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "clients/python/pyproject.toml"
PACKAGE_JSON = ROOT / "clients/node/package.json"
PACKAGE_LOCK = ROOT / "clients/node/package-lock.json"
# The console (not published; shipped as an image): package.json and lock.
CONSOLE_JSON, CONSOLE_LOCK = ROOT / "console/package.json", ROOT / "console/package-lock.json"
RUST_TOML = ROOT / "clients/rust/Cargo.toml"
RUST_LOCK = ROOT / "clients/rust/Cargo.lock"
DOCKERFILES = sorted((ROOT / "packaging/images").glob("Dockerfile*"))
# Text that names the images with a tag.
IMAGE_FILES = sorted((ROOT / "packaging/kubernetes").glob("*.yaml")) + sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]
IMAGE = re.compile(r"ghcr\.io/(?P<owner>[\w.-]+)/(?P<name>zkit(?:-module|-console)?):(?P<tag>[\w.-]+)")


def set_version(path: pathlib.Path, pattern: str, version: str) -> None:
    """Replaces the first match of pattern's group 1 with version."""
    text = path.read_text()
    match = re.search(pattern, text, re.MULTILINE)
    if match:
        path.write_text(text[: match.start(1)] + version + text[match.end(1) :])


def main() -> int:
    module = tomllib.loads((ROOT / "Cargo.toml").read_text())["package"]
    version, repository = module["version"], module.get("repository", "")
    owner = repository.removeprefix("https://github.com/").split("/")[0]
    if sys.argv[1:] == ["--write"]:
        set_version(PYPROJECT, r'^version = "([^"]*)"', version)
        set_version(PACKAGE_JSON, r'^  "version": "([^"]*)"', version)
        set_version(CONSOLE_JSON, r'^  "version": "([^"]*)"', version)
        # Each lock names its package's version twice: top level and packages[""].
        for lock, name in ((PACKAGE_LOCK, "zkit"), (CONSOLE_LOCK, "zkit-console")):
            pattern = rf'("name": "{name}",\n\s*"version": ")[^"]*(")'
            lock.write_text(re.sub(pattern, rf"\g<1>{version}\g<2>", lock.read_text()))
        set_version(RUST_TOML, r'^version = "([^"]*)"', version)
        set_version(RUST_LOCK, r'^name = "zkit-client"\nversion = "([^"]*)"', version)
        for path in DOCKERFILES:
            set_version(path, r"^ARG ZKIT_VERSION=(.*)$", version)
        for path in IMAGE_FILES:
            path.write_text(IMAGE.sub(lambda m: f"ghcr.io/{m['owner']}/{m['name']}:{re.sub(r'^[0-9.]+', version, m['tag'])}", path.read_text()))

    problems = []

    def expect(what: str, got: object, want: object) -> None:
        if got != want:
            problems.append(f"{what} is {got!r}, not {want!r}")

    if not re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", repository):
        problems.append(f"Cargo.toml's repository {repository!r} is not https://github.com/<owner>/<name>")

    python = tomllib.loads(PYPROJECT.read_text())["project"]
    expect("the Python distribution's name", python["name"], "zkit-redis")
    expect("the Python version", python["version"], version)
    expect("the Python license", python["license"], {"text": "MIT"})
    expect("the Python Repository URL", python["urls"].get("Repository"), repository)
    for field in ("description", "readme", "keywords"):
        if not python.get(field):
            problems.append(f"pyproject.toml has no {field}")

    node = json.loads(PACKAGE_JSON.read_text())
    expect("the npm package's name", node["name"], "zkit")
    expect("the npm version", node["version"], version)
    expect("the npm license", node["license"], "MIT")
    expect("the npm repository", node.get("repository"), {"type": "git", "url": f"git+{repository}.git", "directory": "clients/node"})
    for field in ("description", "keywords", "homepage"):
        if not node.get(field):
            problems.append(f"package.json has no {field}")
    for path in (PACKAGE_LOCK, CONSOLE_LOCK):
        lock = json.loads(path.read_text())
        where = path.relative_to(ROOT)
        expect(f"{where}'s version", lock["version"], version)
        expect(f'{where}\'s packages[""].version', lock["packages"][""]["version"], version)
    expect("the console's version", json.loads(CONSOLE_JSON.read_text())["version"], version)

    rust = tomllib.loads(RUST_TOML.read_text())["package"]
    expect("the Rust crate's name", rust["name"], "zkit-client")
    expect("the Rust version", rust["version"], version)
    expect("the Rust license", rust["license"], "MIT")
    expect("the Rust repository", rust.get("repository"), repository)
    expect("the Rust crate's publish setting", rust.get("publish", True), True)
    for field in ("description", "readme", "keywords", "categories"):
        if not rust.get(field):
            problems.append(f"clients/rust/Cargo.toml has no {field}")
    locked = [p["version"] for p in tomllib.loads(RUST_LOCK.read_text())["package"] if p["name"] == "zkit-client"]
    expect("clients/rust/Cargo.lock's zkit-client version", locked, [version])

    for path in DOCKERFILES:
        text = path.read_text()
        for arg, want in (("ZKIT_VERSION", version), ("ZKIT_SOURCE", repository)):
            found = re.findall(rf"^ARG {arg}=(.*)$", text, re.MULTILINE)
            expect(f"{path.relative_to(ROOT)}'s {arg}", found, [want])

    images = 0
    for path in IMAGE_FILES:
        for match in IMAGE.finditer(path.read_text()):
            images += 1
            where = f"{path.relative_to(ROOT)}: {match[0]}"
            if match["owner"] != owner:
                problems.append(f"{where} is not under ghcr.io/{owner}, the repository's owner")
            if not (match["tag"] == version or match["tag"].startswith(version + "-")):
                problems.append(f"{where} is not tagged with version {version}")

    for problem in problems:
        print(f"check-release-metadata: {problem}", file=sys.stderr)
    print(f"check-release-metadata: version {version}, {repository}: 3 client packages, {len(DOCKERFILES)} Dockerfiles, {images} image references, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
