"""The bench scripts' pools: a list of work items split into chunks, results back in input order, in local worker
processes or as tasks on a Ray cluster (`--ray [ADDRESS]`, through harness.analysis.cluster.connect)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

from harness.schema.errors import Refused

Item = TypeVar("Item")
Result = TypeVar("Result")


def map_chunked(
    work: Callable[[list[Item]], list[Result]],
    items: list[Item],
    jobs: int,
    chunks_per_job: int = 4,
    ray: str | None = None,
) -> list[Result]:
    """`work` over `items` in about `chunks_per_job` chunks per worker process (1 job: in this process). With `ray`
    (an address, or "" for a Ray instance on this machine with `jobs` CPUs) each chunk is a Ray task instead.

    `work` must be picklable (a module-level function or a functools.partial of one) and return one result per item.
    """
    if jobs <= 1 and ray is None:
        return work(items)
    size = max(1, len(items) // (chunks_per_job * jobs))
    chunks = [items[i : i + size] for i in range(0, len(items), size)]
    if ray is not None:
        return _on_ray(work, chunks, ray or None, jobs)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return [result for part in pool.map(work, chunks) for result in part]


def _run(work: Callable[[list[Item]], list[Result]], chunk: list[Item]) -> list[Result]:
    return work(chunk)


def _on_ray(
    work: Callable[[list[Item]], list[Result]], chunks: list[list[Item]], address: str | None, cpus: int
) -> list[Result]:
    from harness.analysis.cluster import connect

    try:
        ray = connect(address, cpus if address is None else None)
    except Refused as exc:
        raise SystemExit(str(exc)) from None
    try:
        task = ray.remote(num_cpus=1, max_retries=3)(_run)
        return [result for part in ray.get([task.remote(work, chunk) for chunk in chunks]) for result in part]
    finally:
        ray.shutdown()
