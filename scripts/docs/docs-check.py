#!/usr/bin/env python3
"""Opens every page of the built docs site in headless Chromium and fails
unless each renders its title (the browser's DOM has the <title> the nav in
mkdocs.yml gives the page, and an <h1>), every page of the nav was built,
and every internal link on every page resolves: to a built page or file,
and, when it names an anchor, to an element with that id in the target page
as the browser rendered it. Run with the docs venv's Python (it has PyYAML).

    scripts/docs/docs-check.py SITE_DIR MKDOCS_YML
"""

import html.parser
import pathlib
import subprocess
import sys
import tempfile
import urllib.parse

import yaml

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class Page(html.parser.HTMLParser):
    """What the checks read from a rendered DOM: title, h1s, ids, links."""

    def __init__(self) -> None:
        super().__init__()
        self.title = ""
        self.h1 = []
        self.ids = set()
        self.links = []
        self._in = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href") is not None:
            self.links.append(attrs["href"])
        if tag in ("title", "h1"):
            self._in = tag
            if tag == "h1":
                self.h1.append("")

    def handle_endtag(self, tag):
        if tag == self._in:
            self._in = None

    def handle_data(self, data):
        if self._in == "title":
            self.title += data
        elif self._in == "h1":
            self.h1[-1] += data


def render(file: pathlib.Path) -> Page:
    with tempfile.TemporaryDirectory(prefix="zkit-docs-chromium-") as profile:
        out = subprocess.run(
            ["chromium", *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom", file.as_uri()],
            capture_output=True,
            text=True,
            timeout=120,
        )
    if out.returncode != 0 or "<html" not in out.stdout:
        raise RuntimeError(f"chromium could not render {file}: exit {out.returncode}: {out.stderr[-500:]}")
    page = Page()
    page.feed(out.stdout)
    return page


def target_file(site: pathlib.Path, page_file: pathlib.Path, href: str):
    """The file an internal link points at and its anchor, or None for an
    external link."""
    parts = urllib.parse.urlsplit(href)
    if parts.scheme or parts.netloc or href.startswith("/"):
        return None
    path = urllib.parse.unquote(parts.path)
    target = (page_file.parent / path).resolve() if path else page_file
    if target.is_dir():
        target = target / "index.html"
    return target, urllib.parse.unquote(parts.fragment)


def nav_titles(nav) -> dict:
    """Built page (relative to the site) -> the title the nav gives it."""
    titles = {}
    for entry in nav:
        for title, target in entry.items():
            if isinstance(target, list):
                titles.update(nav_titles(target))
            else:
                page = pathlib.Path(target).with_suffix("")
                built = pathlib.Path("index.html") if page.name == "index" else page / "index.html"
                titles[built] = title
    return titles


def main() -> int:
    site = pathlib.Path(sys.argv[1]).resolve()
    config = yaml.safe_load(pathlib.Path(sys.argv[2]).read_text())
    titles = nav_titles(config["nav"])
    pages = sorted(p for p in site.rglob("*.html") if p.name != "404.html")
    if not pages:
        print(f"docs-check: no pages in {site}", file=sys.stderr)
        return 1
    rendered = {}
    problems = [f"{page}: in the nav but not built" for page in titles if not (site / page).is_file()]
    for file in pages:
        page = render(file)
        rendered[file] = page
        name = file.relative_to(site)
        want = config["site_name"] if name == pathlib.Path("index.html") else f"{titles.get(name)} - {config['site_name']}"
        if name not in titles:
            problems.append(f"{name}: built but not in the nav")
        elif page.title.strip() != want:
            problems.append(f"{name}: title {page.title.strip()!r} rendered, want {want!r}")
        if not page.h1 or not page.h1[0].strip(" \u00b6"):
            problems.append(f"{name}: no <h1> rendered")
    links = 0
    for file, page in rendered.items():
        name = file.relative_to(site)
        for href in page.links:
            resolved = target_file(site, file, href)
            if resolved is None:
                continue
            target, anchor = resolved
            links += 1
            if site not in target.parents:
                problems.append(f"{name}: link {href!r} leaves the site")
            elif not target.is_file():
                problems.append(f"{name}: link {href!r} points at {target.relative_to(site)}, which was not built")
            elif anchor and target.suffix == ".html":
                if target not in rendered:
                    rendered[target] = render(target)
                if anchor not in rendered[target].ids:
                    problems.append(f"{name}: link {href!r}: {target.relative_to(site)} has no element with id {anchor!r}")
    for problem in problems:
        print(f"docs-check: {problem}", file=sys.stderr)
    print(f"docs-check: {len(pages)} pages rendered in headless Chromium, {links} internal links checked, {len(problems)} problems",
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
