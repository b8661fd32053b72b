"""The bench scripts' process pool: a list of work items split into chunks, results back in input order."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


def map_chunked(
    work: Callable[[list[Item]], list[Result]], items: list[Item], jobs: int, chunks_per_job: int = 4
) -> list[Result]:
    """`work` over `items` in about `chunks_per_job` chunks per worker process (1 job: in this process).

    `work` must be picklable (a module-level function or a functools.partial of one) and return one result per item.
    """
    if jobs <= 1:
        return work(items)
    size = max(1, len(items) // (chunks_per_job * jobs))
    chunks = [items[i : i + size] for i in range(0, len(items), size)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return [result for part in pool.map(work, chunks) for result in part]
