from envfactory.ir.env import EnvSpec
from envfactory.runtime.environment import Environment
from envfactory.synth.selfcheck import self_check


def test_every_bundled_environment_passes_its_self_check(bundled_specs: dict[str, EnvSpec]) -> None:
    for name, spec in bundled_specs.items():
        report = self_check(spec)
        assert report.passed, (name, report.failures)
        assert report.deterministic
        names = {c.name for t in report.tools for c in t.checks if c.status == "pass"}
        assert "output matches output schema" in names or name in ("calendar",)
        assert report.counts()["pass"] >= 2 * len(spec.tools.tools)


def test_the_checks_that_prove_each_effect_kind(bundled_specs: dict[str, EnvSpec]) -> None:
    report = self_check(bundled_specs["shop"])
    by_tool = {t.tool: {c.name: c.status for c in t.checks} for t in report.tools}
    assert by_tool["create_order"]["create -> read round trip"] == "pass"
    assert by_tool["create_order"]["create -> list contains it"] == "pass"
    assert by_tool["update_product"]["update persists"] == "pass"
    assert by_tool["cancel_order"]["repeating the action is refused"] == "pass"
    assert by_tool["get_order"]["read of a missing row is not_found"] == "pass"
    petstore = {t.tool: {c.name for c in t.checks} for t in self_check(bundled_specs["petstore"]).tools}
    assert {"delete succeeds", "delete -> read is not_found", "deleting twice is not_found"} <= petstore["deletePet"]
    banking = {t.tool: {c.name: c.status for c in t.checks} for t in self_check(bundled_specs["banking"]).tools}
    assert banking["transfer_funds"] == {
        "transfer moves the amount": "pass",
        "output matches output schema": "pass",
        "overdraft is refused": "pass",
    }


def test_a_broken_behaviour_fails_its_check(bundled_specs: dict[str, EnvSpec]) -> None:
    spec = bundled_specs["shop"]
    behaviours = []
    for b in spec.behaviours:
        if b.tool == "update_product":  # forget to write the price: "update persists" must catch it
            b = b.model_copy(update={"effect": b.effect.model_copy(update={"args": {"stock": "stock"}})})
        behaviours.append(b)
    report = self_check(spec.model_copy(update={"behaviours": tuple(behaviours)}))
    assert not report.passed
    assert any(f.startswith("update_product: update persists") for f in report.failures)


def test_outputs_follow_the_declared_schema_where_the_state_disagrees(bundled_specs: dict[str, EnvSpec]) -> None:
    spec = bundled_specs["shop"]
    tools = []
    for t in spec.tools.tools:
        if t.name == "get_product":  # the declared output says price is text; the state holds numbers
            props = {**t.output_schema["properties"], "price": {"type": "string"}}
            t = t.model_copy(update={"output_schema": {**t.output_schema, "properties": props}})
        tools.append(t)
    contradicting = spec.model_copy(update={"tools": spec.tools.model_copy(update={"tools": tuple(tools)})})
    episode = Environment(contradicting).episode()
    episode.reset(seed=0)
    row = next(iter(episode.store.rows("product")))
    got = episode.call_tool("get_product", {"product_id": row["id"]}).data
    assert isinstance(row["price"], float) and got["price"] == str(row["price"])  # the state keeps its number
    assert self_check(contradicting).passed
