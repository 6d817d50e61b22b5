"""Words of identifiers and of instructions."""

from envfactory.words import says, tokens


def test_identifiers_split_into_words() -> None:
    assert tokens("findPetsByStatus") == ("find", "pets", "by", "status")
    assert tokens("list-data-sets") == ("list", "data", "sets")


def test_a_text_says_a_value_only_whole() -> None:
    assert says("Mark task 3 as done.", 3) and says("the task task_0003.", "task_0003")
    assert not says("due '2025-09-13'", 3) and not says("note 1398 on billing", 139)
    assert not says("3.5 stars", 3) and not says("the annual report", "ann")
