"""Statistics tools answer counts of the state, not a made-up record of their own."""

from __future__ import annotations

from pathlib import Path

from tests.synth.function_lists import STR, checked_tasks, function, synthesize_functions

from envfactory.runtime.environment import Environment

INT = {"type": "integer"}
USERNAME = {"type": "string", "description": "Username of the user."}
TWEET = {"id": INT, "username": USERNAME, "content": STR}


def _social(tmp_path: Path, stats_response: dict) -> list[dict]:
    return [
        function("post_tweet", "Post a tweet.", {"username": USERNAME, "content": STR}, ["username", "content"], TWEET),
        function("get_tweet", "Get a tweet.", {"tweet_id": INT}, ["tweet_id"], TWEET),
        function("follow_user", "Follow a user.", {"username_to_follow": USERNAME}, ["username_to_follow"],
                 {"follow_status": {"type": "boolean", "description": "True if followed, False if already followed."}}),
        function("list_all_following", "List all users the current user is following.", {}, [],
                 {"following_list": {"type": "array", "items": STR}}),
        function("get_user_stats", "Get statistics for a specific user.", {"username": USERNAME}, ["username"],
                 stats_response),
    ]  # fmt: skip


STATS = {
    "tweet_count": {"type": "integer", "description": "Number of tweets posted by the user."},
    "following_count": {"type": "integer", "description": "Number of users the specified user is following."},
    "retweet_count": {"type": "integer", "description": "Number of retweets made by the user."},
}


def test_a_statistics_tool_counts_the_rows_and_lists_it_names(tmp_path: Path) -> None:
    spec = synthesize_functions(tmp_path, "social", _social(tmp_path, STATS))
    effect = spec.behaviour("get_user_stats").effect
    assert effect.kind == "count" and "user_stat" not in spec.state_schema.names  # it counts, it holds nothing
    env, _ = checked_tasks(spec, 5)
    episode = env.episode()
    before = episode.call_tool("get_user_stats", {"username": "ann"}).data
    following = len(episode.call_tool("list_all_following", {}).data["following_list"])  # seeded
    assert before == {"tweet_count": 0, "following_count": following, "retweet_count": 0}
    for text in ("hello", "again"):
        assert episode.call_tool("post_tweet", {"username": "ann", "content": text}).ok
    assert episode.call_tool("post_tweet", {"username": "bob", "content": "hi"}).ok
    assert episode.call_tool("follow_user", {"username_to_follow": "zed"}).ok
    after = episode.call_tool("get_user_stats", {"username": "ann"}).data
    # ann's two tweets (not bob's), one more followed, and no retweets: nothing here makes them
    assert after == {"tweet_count": 2, "following_count": following + 1, "retweet_count": 0}


def test_an_answer_with_anything_but_counts_is_not_statistics(tmp_path: Path) -> None:
    mixed = {**STATS, "bio": {"type": "string", "description": "The user's biography."}}
    spec = synthesize_functions(tmp_path, "social", _social(tmp_path, mixed))
    assert spec.behaviour("get_user_stats").effect.kind != "count"
    wrapped = {"stats": {"type": "object", "properties": STATS}}  # one envelope is fine
    spec = synthesize_functions(tmp_path, "social2", _social(tmp_path, wrapped))
    episode = Environment(spec).episode()
    assert set(episode.call_tool("get_user_stats", {"username": "ann"}).data["stats"]) == set(STATS)


def test_a_singletons_list_is_the_signed_in_users_own(tmp_path: Path) -> None:
    said = {"username": USERNAME, "password": {"type": "string", "description": "Password of the user."}}
    status = {"login_status": {"type": "boolean", "description": "True if logged in, False otherwise."}}
    login = function("social_login", "Log in a user.", said, ["username", "password"], status)
    spec = synthesize_functions(tmp_path, "social", [*_social(tmp_path, STATS), login])
    count = next(c for c in spec.behaviour("get_user_stats").effect.counts if c.field == "following_count")
    assert count.owner == ("username", "session", "username")
    episode = Environment(spec).episode()
    assert episode.call_tool("social_login", {"username": "ann", "password": "pw"}).ok
    assert episode.call_tool("follow_user", {"username_to_follow": "zed"}).ok
    mine = episode.call_tool("get_user_stats", {"username": "ann"}).data["following_count"]
    assert mine == len(episode.call_tool("list_all_following", {}).data["following_list"]) >= 1
    assert episode.call_tool("get_user_stats", {"username": "bob"}).data["following_count"] == 0  # not held here
