"""A running manager logs the HTTP client's per-request lines at DEBUG, not INFO."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from opgen.runtime.transport import quiet_request_logs


@pytest.fixture
def httpx_logger() -> Iterator[logging.Logger]:
    logger = logging.getLogger("httpx2")
    level = logger.level
    yield logger
    logger.setLevel(level)


def test_request_lines_are_debug_only(
    httpx_logger: logging.Logger, caplog: pytest.LogCaptureFixture
) -> None:
    quiet_request_logs()
    quiet_request_logs()  # idempotent: one filter
    assert len(httpx_logger.filters) == 1
    caplog.set_level(logging.DEBUG)  # the root handler would show anything

    httpx_logger.setLevel(logging.INFO)
    httpx_logger.info('HTTP Request: GET https://api/ "HTTP/1.1 200 OK"')
    httpx_logger.warning("kept: not a request line")
    assert [r.levelname for r in caplog.records] == ["WARNING"]

    caplog.clear()
    httpx_logger.setLevel(logging.DEBUG)
    httpx_logger.info('HTTP Request: GET https://api/ "HTTP/1.1 200 OK"')
    assert [(r.levelname, r.levelno) for r in caplog.records] == [
        ("DEBUG", logging.DEBUG)
    ]
