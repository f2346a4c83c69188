"""The package's one build step pyproject.toml cannot say: zkit.lua, the
Functions library the client loads on servers that refuse modules
(Zkit.load_functions), is copied in from the repository's functions/zkit.lua
(which `make functions` builds)."""

import pathlib
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

LIBRARY = pathlib.Path(__file__).resolve().parent.parent.parent / "functions" / "zkit.lua"


class BuildWithLibrary(build_py):
    def run(self) -> None:
        super().run()
        target = pathlib.Path(self.build_lib) / "zkit" / "zkit.lua"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(LIBRARY, target)


setup(cmdclass={"build_py": BuildWithLibrary})
