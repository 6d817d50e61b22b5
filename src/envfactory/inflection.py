"""English singular and plural of the nouns found in API names, without a 2-second import.

``inflect`` took 4.4 s to import (2 s on a quiet machine) and every CLI command paid it. API
nouns are a small world: regular suffix rules plus a table of irregular and Latin forms cover
them. Unknown words fall through to the regular rules, which is also what the large libraries do.
"""

from __future__ import annotations

import re
from functools import cache

_IRREGULAR = {
    "person": "people",
    "man": "men",
    "woman": "women",
    "child": "children",
    "foot": "feet",
    "tooth": "teeth",
    "goose": "geese",
    "mouse": "mice",
    "ox": "oxen",
    "criterion": "criteria",
    "phenomenon": "phenomena",
    "index": "indices",
    "matrix": "matrices",
    "vertex": "vertices",
    "appendix": "appendices",
    "analysis": "analyses",
    "crisis": "crises",
    "thesis": "theses",
    "axis": "axes",
    "diagnosis": "diagnoses",
    "synopsis": "synopses",
    "medium": "media",
    "datum": "data",
    "curriculum": "curricula",
    "quiz": "quizzes",
    "leaf": "leaves",
    "loaf": "loaves",
    "thief": "thieves",
    "wolf": "wolves",
    "half": "halves",
    "calf": "calves",
    "shelf": "shelves",
    "self": "selves",
    "elf": "elves",
    "knife": "knives",
    "wife": "wives",
    "life": "lives",
    "hero": "heroes",
    "potato": "potatoes",
    "tomato": "tomatoes",
    "echo": "echoes",
    "veto": "vetoes",
    "cactus": "cacti",
    "fungus": "fungi",
    "nucleus": "nuclei",
    "radius": "radii",
    "stimulus": "stimuli",
    "syllabus": "syllabi",
    "alumnus": "alumni",
    "genus": "genera",
    "corpus": "corpora",
}
_SINGULAR = {plural: singular for singular, plural in _IRREGULAR.items()}
# the same in both numbers, or plural-looking singulars
_INVARIANT = frozenset(
    {
        "series",
        "species",
        "news",
        "data",
        "metadata",
        "info",
        "information",
        "equipment",
        "feedback",
        "software",
        "hardware",
        "firmware",
        "media",
        "sheep",
        "fish",
        "deer",
        "aircraft",
        "analytics",
        "settings",
        "progress",
        "chassis",
        "corps",
        "means",
        "headquarters",
        "physics",
        "mathematics",
        "statistics",
        "economics",
        "ethics",
        "politics",
        "logistics",
        "diabetes",
        "apparatus",
        "plus",
        "minus",
        "this",
        "his",
        "is",
        "yes",
        "us",
    }
)
# singulars that end in "s" and take "-es" ("alias" -> "aliases")
_S_SINGULARS = frozenset(
    {
        "status",
        "access",
        "address",
        "business",
        "canvas",
        "alias",
        "bus",
        "gas",
        "atlas",
        "lens",
        "campus",
        "census",
        "virus",
        "bonus",
        "focus",
        "genius",
        "prospectus",
        "consensus",
        "process",
        "class",
        "pass",
        "boss",
        "loss",
        "kiss",
        "guess",
        "dress",
    }
)
_ES_AFTER = re.compile(r"(?:s|x|z|ch|sh)$")
_CONSONANT_Y = re.compile(r"[^aeiou]y$")
# "-ves" words that come from "-ve", not from "-f"/"-fe"
_VE_WORDS = frozenset(
    {
        "archive",
        "drive",
        "move",
        "glove",
        "curve",
        "valve",
        "olive",
        "objective",
        "directive",
        "initiative",
        "incentive",
        "alternative",
        "representative",
        "native",
        "executive",
        "reserve",
        "sleeve",
        "groove",
        "stove",
        "wave",
        "slave",
        "save",
        "cave",
        "grave",
        "nerve",
        "serve",
        "five",
        "hive",
        "dive",
        "live",
        "give",
        "perspective",
        "collective",
        "narrative",
        "derivative",
        "positive",
        "negative",
        "primitive",
        "motive",
        "adjective",
        "detective",
        "relative",
        "preserve",
        "solve",
        "resolve",
        "approve",
        "remove",
        "love",
        "above",
        "eve",
        "have",
    }
)
# "-oes" words whose singular ends in "-oe"
_OE_WORDS = frozenset({"shoe", "toe", "canoe", "oboe", "hoe", "foe", "floe", "woe", "doe", "sloe", "roe"})
# "-ies" words whose singular ends in "-ie"
_IE_WORDS = frozenset(
    {
        "movie",
        "cookie",
        "tie",
        "pie",
        "lie",
        "die",
        "rookie",
        "selfie",
        "zombie",
        "genie",
        "calorie",
        "brownie",
        "hippie",
        "prairie",
        "eerie",
        "goalie",
        "hoodie",
        "newbie",
        "freebie",
        "smoothie",
        "sortie",
        "veggie",
        "boogie",
        "auntie",
        "birdie",
        "cutie",
        "yuppie",
        "lassie",
        "specie",
        "pixie",
        "budgie",
        "collie",
        "coolie",
        "magpie",
        "walkie",
        "talkie",
    }
)


@cache
def plural(word: str) -> str:
    """The plural of a lower-case English noun."""
    if word in _INVARIANT:
        return word
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if _CONSONANT_Y.search(word):
        return word[:-1] + "ies"
    if word.endswith("quy"):
        return word[:-1] + "ies"
    if _ES_AFTER.search(word):
        return word + "es"
    return word + "s"


@cache
def singular(word: str) -> str:
    """The singular of a lower-case English noun (the word itself when it is not a plural)."""
    if word in _INVARIANT or word in _S_SINGULARS or len(word) <= 2:
        return word
    if word in _SINGULAR:
        return _SINGULAR[word]
    if word.endswith("ies") and len(word) > 4:
        stem = word[:-3]
        return stem + "ie" if stem + "ie" in _IE_WORDS else stem + "y"
    if word.endswith("ves"):
        stem = word[:-3]
        if stem + "ve" in _VE_WORDS or stem.endswith(("ar", "ir", "ur", "er")):
            return stem + "ve"
        return stem + "f"
    if word.endswith("oes"):
        stem = word[:-2]
        return stem + "e" if stem + "e" in _OE_WORDS else stem
    if word.endswith(("sses", "shes", "ches", "xes", "zzes")):
        return word[:-2]
    if word.endswith("ses"):  # "aliases" -> "alias", "cases" -> "case"
        return word[:-2] if word[:-2] in _S_SINGULARS else word[:-1]
    if word.endswith("zes"):
        return word[:-1]
    if word.endswith(("ss", "us", "is", "ous", "sis")):
        return word
    if word.endswith("s") and not word.endswith("'s"):
        return word[:-1]
    return word


__all__ = ["plural", "singular"]
