#!/usr/bin/env python3
"""Opens every page of the built docs site in headless Chromium and fails
unless each renders its title (the browser's DOM has a <title> naming the
page, and an <h1>) and every internal link on it resolves: to a built page
or file, and, when it names an anchor, to an element with that id in the
target page as the browser rendered it.

    scripts/docs-check.py SITE_DIR
"""

import html.parser
import pathlib
import subprocess
import sys
import tempfile
import urllib.parse

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


def main() -> int:
    site = pathlib.Path(sys.argv[1]).resolve()
    pages = sorted(p for p in site.rglob("*.html") if p.name != "404.html")
    if not pages:
        print(f"docs-check: no pages in {site}", file=sys.stderr)
        return 1
    rendered = {}
    problems = []
    for file in pages:
        page = render(file)
        rendered[file] = page
        name = file.relative_to(site)
        if not page.h1 or not page.h1[0].strip():
            problems.append(f"{name}: no <h1> rendered")
        elif not page.title.strip().startswith(("zkit",) if name == pathlib.Path("index.html") else (page.h1[0].strip(),)):
            problems.append(f"{name}: title {page.title!r} does not name the page ({page.h1[0].strip()!r})")
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
