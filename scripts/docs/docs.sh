#!/usr/bin/env bash
# make docs: builds the docs site into ./site with MkDocs --strict (a broken
# link, an unknown anchor or a page left out of the nav fails), then opens
# every built page in headless Chromium (scripts/docs/docs-check.py). MkDocs and
# the Material theme come from PyPI, at the versions pinned in
# scripts/docs/docs-requirements.txt, into a venv under ./.docs; Chromium from
# apt-get if missing (`docs.sh fetch` stops there).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh

venv=.docs/venv
requirements=scripts/docs/docs-requirements.txt
if [[ ! -x $venv/bin/mkdocs || $(cat "$venv/requirements.txt" 2>/dev/null) != $(<"$requirements") ]]; then
  echo "docs: installing $(paste -sd' ' "$requirements") into $venv" >&2
  python3 -c 'import ensurepip' 2>/dev/null || apt_install python3-venv
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$venv/requirements.txt"
fi
command -v chromium >/dev/null || apt_install chromium
[[ ${1:-} != fetch ]] || exit 0

NO_MKDOCS_2_WARNING=1 "$venv/bin/mkdocs" build --strict --clean --quiet
echo "docs: built $(find site -name index.html | wc -l) pages into site/ (mkdocs build --strict)" >&2

"$venv/bin/python" scripts/docs/docs-check.py site mkdocs.yml
