"""``bench/sim2real.py --reuse``: what a finished run and an evaluation stand for."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.conftest import ROOT

from envfactory.rl.lm.recipe import LMConfig


def _run(folder: Path, config: LMConfig, stage: str, step: int) -> Path:
    folder.mkdir(parents=True)
    (folder / "lm_config.json").write_text(config.model_dump_json())
    (folder / "lm_state.json").write_text(json.dumps({"stage": stage, "step": step}))
    return folder


def test_a_warm_start_is_reused_whatever_rl_reads_and_a_row_retrained_is_evaluated_again(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    import sim2real

    warm = LMConfig(sft_epochs=2, rl_iterations=0)
    sft = _run(tmp_path / "sft", warm, "sft", 2)
    assert sim2real.finished(sft, warm.model_copy(update={"draws": 4}))  # a warm start reads no RL setting
    assert not sim2real.finished(sft, warm.model_copy(update={"sft_epochs": 3}))
    rl = LMConfig(sft_epochs=2, rl_iterations=2)
    once = _run(tmp_path / "once", rl, "rl", 2)
    drawn = _run(tmp_path / "drawn", rl.model_copy(update={"draws": 4}), "rl", 2)
    assert not sim2real.finished(once, rl.model_copy(update={"draws": 4}))  # RL with other draws: trained again
    # an evaluation is keyed by what trained its run: a row retrained under other settings is evaluated again
    assert sim2real._settings(once) != sim2real._settings(drawn)
    assert sim2real._settings(sft) == sim2real._settings(_run(tmp_path / "sft4", warm.model_copy(update={"draws": 4}),
                                                             "sft", 2))  # fmt: skip
    assert sim2real._settings(None) == []
