"""A thing's children among function tools: ``get_post_comments(post_id)`` lists the comments of
one post, ``comment(post_id, comment_content)`` makes one. Written from scratch after BFCL's
posting API."""

from __future__ import annotations

from pathlib import Path

from tests.synth.function_lists import STR, checked_tasks, function, synthesize_functions

from envfactory.ir.effect import CreateEffect, FallbackEffect, ListEffect
from envfactory.runtime.environment import Environment

POST_ID = {"type": "integer", "description": "ID of the post."}
COMMENTS = {"type": "array", "items": {"type": "dict", "properties": {"username": STR, "content": STR}}}
TOOLS = [
    function("create_post", "Create a post.", {"content": STR}, ["content"], {"id": POST_ID, "content": STR}),
    function("get_post", "Get a post.", {"post_id": POST_ID}, ["post_id"], {"id": POST_ID, "content": STR}),
    function("get_post_comments", "Get the comments of a post.", {"post_id": POST_ID}, ["post_id"],
             {"comments": COMMENTS}),
    function("comment", "Comment on a post.", {"post_id": POST_ID, "comment_content": STR},
             ["post_id", "comment_content"], {"comment_status": STR}),
    function("shout", "Shout about a post.", {"post_id": POST_ID, "volume": {"type": "integer"}}, ["post_id"],
             {"status": STR}),
]  # fmt: skip


def test_comments_belong_to_the_post_they_are_made_on(tmp_path: Path) -> None:
    spec = synthesize_functions(tmp_path, "posts", TOOLS)
    comments = spec.state_schema["post_comment"]
    assert comments.refs == {"post_id": "post"} and comments.fields["post_id"]["type"] == "integer"
    make, listing = spec.behaviour("comment").effect, spec.behaviour("get_post_comments").effect
    assert isinstance(make, CreateEffect) and make.args == {"post_id": "post_id", "comment_content": "content"}
    assert isinstance(listing, ListEffect) and listing.needs == {"post_id": "post"}
    assert isinstance(spec.behaviour("shout").effect, FallbackEffect)  # no list of "post_shouts": not a child
    ep = Environment(spec).episode()
    post = ep.call_tool("create_post", {"content": "hello"}).data["id"]
    assert ep.call_tool("comment", {"post_id": post, "comment_content": "first!"}).ok
    listed = ep.call_tool("get_post_comments", {"post_id": post})
    assert listed.ok and [c["content"] for c in listed.data["comments"]] == ["first!"], listed.content
    assert ep.call_tool("get_post_comments", {"post_id": 99_999}).error == "not_found"
    assert ep.call_tool("comment", {"post_id": 99_999, "comment_content": "x"}).error == "not_found"


def test_comment_tasks_are_generated_and_verified(tmp_path: Path) -> None:
    _, tasks = checked_tasks(synthesize_functions(tmp_path, "posts", TOOLS), 10)
    assert any(c.tool == "comment" for t in tasks for c in t.gold)
