"""Shared fixtures: paths to bundled and wild specs, and synthesized bundled environments."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

# one scratch folder per test run (test modules import this file a second time), removed when it ends
os.environ["ENVFACTORY_TEST_SCRATCH"] = SCRATCH = os.environ.get("ENVFACTORY_TEST_SCRATCH") or tempfile.mkdtemp(
    prefix="envfactory-test-"
)
# run in parallel (pytest-xdist's workers, ``make test``), a test sees the terminal a run in one process sees:
# none (the workers are given ``COLUMNS=80``, which would wrap the tables a test reads back)
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.pop("COLUMNS", None)
    os.environ.pop("LINES", None)
    # and the workers share the cores: torch's and BLAS's loops take one thread in each, not one per core each
    for threads in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(threads, "1")
# model responses cached by tests go to a fresh folder, never to the user's ~/.cache
os.environ.setdefault("ENVFACTORY_CACHE", os.path.join(SCRATCH, "cache"))
# nothing in the tests reaches for a model or dataset hub; their caches stay out of ~/.cache too
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HOME", os.path.join(SCRATCH, "hf"))

import envfactory.synth
import envfactory.synth.build
from envfactory.bundled import BUNDLED
from envfactory.ir.env import EnvSpec
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.testing.roundtrip import round_tripped
from envfactory.testing.shared import shared_dir

# A property of the whole suite: every environment a test synthesizes (test modules import
# ``synthesize`` after this line) saves and loads back to an equal EnvSpec (issue #25).
envfactory.synth.synthesize = envfactory.synth.build.synthesize = round_tripped(envfactory.synth.build.synthesize)

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "specs"
WILD = shared_dir(ROOT) / "specs-wild"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def bundled_specs() -> dict[str, EnvSpec]:
    return {name: synthesize(SPECS / file, name=name, trust_code=True) for name, file in BUNDLED.items()}


@pytest.fixture(scope="session")
def bundled_envs(bundled_specs: dict[str, EnvSpec]) -> dict[str, Environment]:
    return {name: Environment(spec) for name, spec in bundled_specs.items()}


@pytest.fixture
def shop(bundled_envs: dict[str, Environment]) -> Environment:
    return bundled_envs["shop"]


def wild(name: str) -> Path:
    """A spec of ``shared/specs-wild``; its absence fails the test unless ENVFACTORY_SKIP_WILD=1 says to skip."""
    path = WILD / name
    if not path.exists():
        message = f"{path} is not available (shared/specs-wild must sit beside the repository)"
        if os.environ.get("ENVFACTORY_SKIP_WILD") == "1":
            pytest.skip(message + "; skipped because ENVFACTORY_SKIP_WILD=1")
        pytest.fail(message + "; set ENVFACTORY_SKIP_WILD=1 to skip these tests on purpose")
    return path


def openapi_file(folder: Path, paths: dict, title: str = "t") -> Path:
    """A minimal OpenAPI 3 description of ``paths`` written to ``folder``."""
    path = folder / f"{title}.json"
    path.write_text(json.dumps({"openapi": "3.0.0", "info": {"title": title, "version": "1"}, "paths": paths}))
    return path


def path_id(kind: str = "string") -> dict:
    """The ``{id}`` path parameter of a record's route."""
    return {"name": "id", "in": "path", "required": True, "schema": {"type": kind}}


def pytest_unconfigure(config: pytest.Config) -> None:
    """The run's scratch folder (model caches) goes with it: nothing is left in the temp folder. A
    parallel run's workers share the folder their controller made: it removes it, after them."""
    if not hasattr(config, "workerinput"):
        shutil.rmtree(SCRATCH, ignore_errors=True)
