"""Voting site (Redis in Action's, with down votes): a vote, a switch or a
take-back is one atomic call; every key of the site shares the tag {news}."""

import time

import redis

import zkit

WEEK = 604800


def voting_site(r: redis.Redis, prefix: str = "") -> None:  # prefix: before every key
    z = zkit.Zkit(r)
    news = prefix + "{news}"
    posted = int(time.time())
    r.zadd(news + ":time", {"100408": posted})  # post_article: post time,
    r.zadd(news + ":score", {"100408": posted + 432})  # score = post time + 432,
    r.sadd(news + ":up:100408", "user:83271")  # the poster's own vote
    article = (news + ":score", news + ":up:100408", news + ":down:100408", "100408")
    weight, window = (432, 432), (news + ":time", WEEK)

    score, ups, downs, changed = z.vote_cast(*article, "user:115423", "UP", weight=weight, window=window)
    assert (score, ups, downs, changed) == (posted + 864, 2, 0, True)
    assert not z.vote_cast(*article, "user:115423", "UP", weight=weight, window=window).changed  # voting twice changes nothing
    assert z.vote_cast(*article, "user:115423", "DOWN", weight=weight, window=window) == (posted, 1, 1, True)  # switched: -432 -432
    assert z.vote_state(news + ":up:100408", news + ":down:100408", "user:115423") == -1
    assert z.vote_cast(*article, "user:115423", "CLEAR", weight=weight, window=window).score == posted + 432

    r.zadd(news + ":time", {"99999": posted - 8 * 86400})  # posted more than a week ago
    old = (news + ":score", news + ":up:99999", news + ":down:99999", "99999")
    try:
        z.vote_cast(*old, "user:115423", "UP", weight=weight, window=window)
        raise AssertionError("the window has passed")
    except redis.ResponseError as closed:
        assert str(closed).startswith("voting is closed")


if __name__ == "__main__":
    from run_example import run_example  # REDIS_URL, one server or a cluster, keys of its own

    run_example(voting_site)
