"""Rate limit: at most 2 comments in any 5 seconds, checked and logged in
one step."""

import redis

import zkit


def rate_limit(r: redis.Redis, prefix: str = "") -> None:  # prefix: before every key
    z = zkit.Zkit(r)
    comments, uploads = prefix + "user:1000:comment", prefix + "user:1000:upload"
    assert z.rate_hit(comments, 5000, 2) == (True, 1, 1, -1)  # (allowed, count, remaining, retry_after_ms)
    assert z.rate_hit(comments, 5000, 2).allowed
    hit = z.rate_hit(comments, 5000, 2)
    assert not hit.allowed and hit.remaining == 0
    print(f"refused: retry in {hit.retry_after_ms} ms")  # when the oldest hit leaves the window
    assert z.rate_hit(uploads, 60_000, 10, cost=4).remaining == 6  # a bulk upload counts 4


if __name__ == "__main__":
    from run_example import run_example  # REDIS_URL, one server or a cluster, keys of its own

    run_example(rate_limit)
