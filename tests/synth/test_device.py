"""A device: keyless tools that set and read one shared record (the shape of BFCL's vehicle
control), here a humidifier written from its description before the synthesizer was tuned on it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.synth.function_lists import checked_tasks, function, synthesize_functions

from envfactory.ir.effect import SingletonEffect
from envfactory.real.instrument import PythonSide, measure
from envfactory.runtime.environment import Environment

JSON = dict[str, Any]
MODE = {"type": "string", "description": 'The mode. [Enum]: ["sleep", "turbo", "auto"]'}
STATUS = {
    "powerState": {"type": "string", "description": 'Power. [Enum]: ["on", "off"]'},
    "fanMode": {"type": "string", "description": 'Fan mode. [Enum]: ["sleeping", "turbo", "auto"]'},
    "targetHumidity": {"type": "integer", "description": "Target humidity in percent."},
    "waterLevel": {"type": "number", "description": "Water in the tank, in litres."},
}
TOOLS = [
    function("setPower", "Switches the humidifier on or off.",
             {"on": {"type": "boolean", "description": "True for on."}}, ["on"], {"powerState": STATUS["powerState"]}),
    function("setFanMode", "Sets the fan mode.", {"mode": MODE}, ["mode"], {"fanMode": STATUS["fanMode"]}),
    function("adjustHumidity", "Sets the humidity to keep.",
             {"humidity": {"type": "integer", "description": "Target humidity, from 30 to 70."}}, ["humidity"],
             {"targetHumidity": STATUS["targetHumidity"], "fanMode": STATUS["fanMode"]}),
    function("refillTank", "Refills the water tank. The tank can hold up to 4 litres.",
             {"litres": {"type": "number", "description": "The additional water to add, in litres."}}, ["litres"],
             {"waterLevel": STATUS["waterLevel"]}),
    function("showStatus", "Shows the humidifier's status.", {}, [],
             {"status": {"type": "dict", "properties": STATUS}}),
    function("get_water_level", "Gets the water level.", {}, [], {"waterLevel": STATUS["waterLevel"]}),
]  # fmt: skip

HUMIDIFIER = '''
class Humidifier:
    def __init__(self):
        self.power_state, self.fan_mode, self.target_humidity, self.water_level = "off", "auto", 45, 1.5

    def setPower(self, on: bool) -> dict:
        """Switches the humidifier on or off."""
        self.power_state = "on" if on else "off"
        return {"powerState": self.power_state}

    def setFanMode(self, mode: str) -> dict:
        """Sets the fan mode."""
        if mode not in ("sleep", "turbo", "auto"):
            return {"error": "Invalid mode."}
        self.fan_mode = {"sleep": "sleeping"}.get(mode, mode)
        return {"fanMode": self.fan_mode}

    def adjustHumidity(self, humidity: int) -> dict:
        """Sets the humidity to keep."""
        if not 30 <= humidity <= 70:
            return {"error": "Humidity must be between 30 and 70."}
        self.target_humidity = humidity
        return {"targetHumidity": humidity, "fanMode": self.fan_mode}

    def refillTank(self, litres: float) -> dict:
        """Refills the water tank."""
        if litres < 0:
            return {"error": "Cannot add a negative amount."}
        if self.water_level + litres > 4:
            return {"error": "Cannot fill above the tank capacity."}
        self.water_level += litres
        return {"waterLevel": self.water_level}

    def showStatus(self) -> dict:
        """Shows the humidifier's status."""
        return {"status": {"powerState": self.power_state, "fanMode": self.fan_mode,
                           "targetHumidity": self.target_humidity, "waterLevel": self.water_level}}

    def get_water_level(self) -> dict:
        """Gets the water level."""
        return {"waterLevel": self.water_level}
'''


def _spec(tmp_path: Path) -> Any:
    return synthesize_functions(tmp_path, "humidifier", TOOLS)


def test_keyless_tools_sharing_output_fields_become_one_device(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    assert "device" in spec.state_schema.names
    effects = {b.tool: b.effect for b in spec.behaviours}
    assert all(isinstance(e, SingletonEffect) and e.entity == "device" for e in effects.values())
    power, fan, refill = effects["setPower"], effects["setFanMode"], effects["refillTank"]
    assert isinstance(power, SingletonEffect) and power.values["on"] == {"true": "on", "false": "off"}
    assert isinstance(fan, SingletonEffect) and fan.values["mode"] == {
        "sleep": "sleeping",
        "turbo": "turbo",
        "auto": "auto",
    }
    assert isinstance(refill, SingletonEffect) and refill.adds == {"litres": "waterLevel"}
    assert spec.state_schema["device"].fields["waterLevel"]["maximum"] == 4  # "can hold up to 4 litres"
    assert len(spec.initial_state["device"]) == 1


def test_a_device_sets_reads_adds_and_refuses_past_its_capacity(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    row = {"_id": "self", "powerState": "off", "fanMode": "auto", "targetHumidity": 45, "waterLevel": 1.5}
    ep = Environment(spec.model_copy(update={"initial_state": {**spec.initial_state, "device": [row]}})).episode()
    assert ep.call_tool("setPower", {"on": True}).data == {"powerState": "on"}
    assert ep.call_tool("setFanMode", {"mode": "sleep"}).data == {"fanMode": "sleeping"}
    assert ep.call_tool("adjustHumidity", {"humidity": 80}).error == "invalid_arguments"  # "from 30 to 70"
    assert ep.call_tool("adjustHumidity", {"humidity": 60}).data == {"targetHumidity": 60, "fanMode": "sleeping"}
    assert ep.call_tool("refillTank", {"litres": 2}).data == {"waterLevel": 3.5}
    before = ep.state_hash()
    assert ep.call_tool("refillTank", {"litres": 1}).error == "precondition_failed"  # 4.5 > 4
    assert ep.call_tool("refillTank", {"litres": -1}).error == "invalid_arguments"
    assert ep.state_hash() == before  # refused, nothing written
    assert ep.call_tool("showStatus", {}).data == {"status": {"powerState": "on", "fanMode": "sleeping",
                                                              "targetHumidity": 60, "waterLevel": 3.5}}  # fmt: skip
    assert ep.call_tool("get_water_level", {}).data == {"waterLevel": 3.5}


def test_a_device_self_checks_and_yields_tasks(tmp_path: Path) -> None:
    _, tasks = checked_tasks(_spec(tmp_path), 10)
    assert tasks and any(c.tool in ("setPower", "setFanMode", "adjustHumidity") for t in tasks for c in t.gold)


def test_a_device_measures_like_its_real_implementation(tmp_path: Path) -> None:
    (tmp_path / "humidifier.py").write_text(HUMIDIFIER)
    spec, real = _spec(tmp_path), f"{tmp_path / 'humidifier.py'}:Humidifier"
    start = PythonSide(spec, real, None).synth_spec.initial_state["device"][0]
    assert start["powerState"] == "off" and start["waterLevel"] == 1.5  # the object's own fields, by name
    measured = measure(spec, real, sequences=12, length=8)
    assert measured.outcome is not None and measured.stub_outcome is not None
    assert measured.outcome == 1.0 and measured.outcome >= measured.stub_outcome + 0.1
    assert measured.output_fields is not None and measured.output_fields >= 0.9
    assert measured.final_state == 1.0


def test_an_omitted_argument_sets_its_declared_default(tmp_path: Path) -> None:
    fan = {"type": "integer", "description": "The fan speed to set from 0 to 100. Default is 50.", "default": 50}
    climate = [
        function("adjustClimate", "Adjusts the climate control.",
                 {"temperature": {"type": "number"}, "fanSpeed": fan}, ["temperature"],
                 {"currentTemperature": {"type": "number"}, "fanSpeed": {"type": "integer"}}),
        function("setFan", "Sets the fan.", {"fanSpeed": fan}, ["fanSpeed"], {"fanSpeed": {"type": "integer"}}),
        function("showClimate", "Shows the climate.", {}, [],
                 {"currentTemperature": {"type": "number"}, "fanSpeed": {"type": "integer"}}),
    ]  # fmt: skip
    spec = synthesize_functions(tmp_path, "climate", climate)
    ep = Environment(spec).episode()
    assert ep.call_tool("setFan", {"fanSpeed": 90}).ok
    assert ep.call_tool("adjustClimate", {"temperature": 21.5}).ok  # no fan speed given: the default, 50
    assert ep.call_tool("showClimate", {}).data == {"currentTemperature": 21.5, "fanSpeed": 50}


def test_an_option_that_names_fields_answers_only_those(tmp_path: Path) -> None:
    option = {"type": "string", "description": 'What to show. [Enum]: ["power", "fan", "water", "filter"]'}
    shown = function("displayStatus", "Shows the part of the status the option names.", {"option": option},
                     ["option"], {"status": {"type": "dict", "properties": STATUS}})  # fmt: skip
    spec = synthesize_functions(tmp_path, "humidifier", [*TOOLS, shown])
    effect = spec.behaviour("displayStatus").effect
    assert isinstance(effect, SingletonEffect)
    assert effect.selects == {"option": {"power": ("powerState",), "fan": ("fanMode",), "water": ("waterLevel",)}}
    episode = Environment(spec).episode()
    assert episode.call_tool("setPower", {"on": True}).ok
    assert episode.call_tool("displayStatus", {"option": "power"}).data == {"status": {"powerState": "on"}}
    assert set(episode.call_tool("displayStatus", {"option": "filter"}).data["status"]) == set(STATUS)  # names none
