"""Many designs, many workers: the runner behind `bench --ray` and `run-all`.

`runner.run_designs` scores bench jobs on a backend (`local`: this process or a process
pool; `ray_backend`: the tasks of a Ray cluster, each design built and run in its worker's
own sandbox and cache, a lost worker's design run again), shows `progress`, keeps each
finished row in a `journal` so a restarted run skips them, and writes `bench.json`,
`bench.md`, `bench.png` and a JUnit XML (`junit`). Rows and keys are pure (`rows`); the
files a design needs and the files an episode writes cross machines through `files`.
"""

from __future__ import annotations
