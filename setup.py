"""Build hook: the wheel carries the bundled sample run as package data.

The sample lives once, in ``fixtures/runs/k3_avg_hierarchy`` (the generator writes it there
and the tests check it byte for byte); ``build_py`` copies it into the built package as
``inspector/sample/k3_avg_hierarchy``, where an installed ``inspector`` finds it
(``inspector.app.settings.SAMPLE_RUN``). Everything else is declared in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SAMPLE = Path("fixtures") / "runs" / "k3_avg_hierarchy"


class BuildWithSample(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads the checkout's fixtures/
            return
        target = Path(self.build_lib) / "inspector" / "sample" / SAMPLE.name
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(SAMPLE, target)


setup(cmdclass={"build_py": BuildWithSample})
