"""Seconds spent in each phase of handling a batch, for the per-batch debug log. No I/O."""

import time
from collections.abc import Iterator
from contextlib import contextmanager


class Stopwatch:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, phase: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[phase] = round(self.seconds.get(phase, 0.0) + time.perf_counter() - started, 4)
