"""Rate limit: at most 2 comments in any 5 seconds, checked and logged in
one step."""

import redis

import zkit


def rate_limit(r: redis.Redis, prefix: str = "") -> None:  # prefix: your app's key namespace
    z = zkit.Zkit(r)
    comments, uploads = f"{prefix}user:1000:comment", f"{prefix}user:1000:upload"
    assert z.rate_hit(comments, 5000, 2) == (True, 1, 1, -1)  # (allowed, count, remaining, retry_after_ms)
    assert z.rate_hit(comments, 5000, 2).allowed
    hit = z.rate_hit(comments, 5000, 2)
    assert not hit.allowed and hit.remaining == 0
    print(f"refused: retry in {hit.retry_after_ms} ms")  # when the oldest hit leaves the window
    assert z.rate_hit(uploads, 60_000, 10, cost=4).remaining == 6  # a bulk upload counts 4


if __name__ == "__main__":
    rate_limit(redis.Redis(decode_responses=True))
