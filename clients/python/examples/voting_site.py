"""Voting site (Redis in Action's, with down votes): a vote, a switch or a
take-back is one atomic call; every key of the site shares the tag {news}."""

import time

import redis

import zkit

WEEK = 604800


def voting_site(r: redis.Redis, prefix: str = "") -> None:  # prefix: your app's key namespace
    z = zkit.Zkit(r)
    news = prefix + "{news}"
    posted = int(time.time())
    r.zadd(f"{news}:time", {"100408": posted})  # post_article: post time,
    r.zadd(f"{news}:score", {"100408": posted + 432})  # score = post time + 432,
    r.sadd(f"{news}:up:100408", "user:83271")  # the poster's own vote
    article = (f"{news}:score", f"{news}:up:100408", f"{news}:down:100408", "100408")
    weight, window = (432, 432), (f"{news}:time", WEEK)

    score, ups, downs, changed = z.vote_cast(*article, "user:115423", "UP", weight=weight, window=window)
    assert (score, ups, downs, changed) == (posted + 864, 2, 0, True)
    assert not z.vote_cast(*article, "user:115423", "UP", weight=weight, window=window).changed  # voting twice changes nothing
    assert z.vote_cast(*article, "user:115423", "DOWN", weight=weight, window=window) == (posted, 1, 1, True)  # switched: -432 -432
    assert z.vote_state(f"{news}:up:100408", f"{news}:down:100408", "user:115423") == -1
    assert z.vote_cast(*article, "user:115423", "CLEAR", weight=weight, window=window).score == posted + 432

    r.zadd(f"{news}:time", {"99999": posted - 8 * 86400})  # posted more than a week ago
    old = (f"{news}:score", f"{news}:up:99999", f"{news}:down:99999", "99999")
    try:
        z.vote_cast(*old, "user:115423", "UP", weight=weight, window=window)
        raise AssertionError("the window has passed")
    except redis.ResponseError as closed:
        assert str(closed).startswith("voting is closed")


if __name__ == "__main__":
    voting_site(redis.Redis(decode_responses=True))
