"""The response cache belongs to the project at hand unless the user points elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from envfactory.llm.cache import CachedClient
from envfactory.llm.client import default_cache, make_client


def test_each_project_folder_gets_its_own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ENVFACTORY_CACHE", raising=False)
    paths = []
    for project in ("one", "two"):
        (tmp_path / project).mkdir()
        monkeypatch.chdir(tmp_path / project)
        client = make_client("local")  # the embedded model loads on the first request only
        assert isinstance(client.inner, CachedClient)
        paths.append(client.inner.path)
        client.inner.close()
    assert paths == [tmp_path / "one" / ".envfactory" / "llm.sqlite", tmp_path / "two" / ".envfactory" / "llm.sqlite"]
    assert all(p.is_file() for p in paths)


def test_envfactory_cache_points_elsewhere_and_none_means_no_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ENVFACTORY_CACHE", str(tmp_path / "shared"))
    assert default_cache() == tmp_path / "shared" / "llm.sqlite"
    assert not isinstance(make_client("local", cache=None).inner, CachedClient)
    assert not (tmp_path / ".envfactory").exists()
