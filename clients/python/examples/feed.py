"""Feed: pages newest first with exact cursors; pull-down for newer items,
pull-up for older ones, never repeating or skipping an item."""

import redis

import zkit


def feed(r: redis.Redis, prefix: str = "") -> None:  # prefix: before every key
    z = zkit.Zkit(r)
    key = prefix + "feed:user:7"
    assert z.feed_add(key, {f"item:{n}": n for n in range(100, 116)}, cap=500) == 16
    page = z.feed_page(key, count=3)  # first load: newest first
    assert [item.member for item in page.items] == ["item:115", "item:114", "item:113"]
    top, bottom = page.top, page.bottom  # keep both cursors

    z.feed_add(key, {f"item:{n}": n for n in range(116, 120)}, cap=500)
    newer: list = []
    while True:  # pull-down: repeat until nothing newer remains
        page = z.feed_page(key, count=3, newer=top)
        newer = [item.member for item in page.items] + newer  # later pages show above
        top = page.top if page.items else top
        if not page.more:
            break
    assert newer == ["item:119", "item:118", "item:117", "item:116"]

    page = z.feed_page(key, count=3, older=bottom)  # pull-up: one page per scroll
    assert [item.member for item in page.items] == ["item:112", "item:111", "item:110"]  # no repeat of item:113
    assert page.more  # older items remain


if __name__ == "__main__":
    from run_example import run_example  # REDIS_URL, one server or a cluster, keys of its own

    run_example(feed)
