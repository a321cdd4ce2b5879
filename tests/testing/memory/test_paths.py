"""A route's query, read as `urllib.parse.parse_qs` reads it."""

from __future__ import annotations

import random
import urllib.parse

from opgen.testing.memory.paths import parse_route


def test_a_query_reads_as_parse_qs_reads_it() -> None:
    draw = random.Random(25)
    for _ in range(5000):
        text = "".join(draw.choice("ab=&%+2x;") for _ in range(draw.randint(0, 12)))
        route = parse_route(f"/api/v1/namespaces/n/configmaps?{text}")
        assert route is not None
        expected = {k: v[-1] for k, v in urllib.parse.parse_qs(text).items()}
        assert route.query == expected, text
