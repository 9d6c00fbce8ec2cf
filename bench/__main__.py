"""`make bench`: run every benchmark and write the reports under bench/out/.

``BENCH_QUICK=1`` (``make bench QUICK=1``) makes a short smoke run of each: fewer repetitions and
a two-configuration fan-out with small cells.
"""

import os
import sys
import time

from bench import expression_language, long_log, roll_costs, rolls_speed, rules_speed
from bench.fanout import run as fanout

if __name__ == "__main__":
    quick = os.environ.get("BENCH_QUICK", "") not in ("", "0")
    if quick:
        os.environ.setdefault("BENCH_RUNS", "1")
    started = time.monotonic()
    failed = rules_speed.main()
    failed |= rolls_speed.main(calls=200 if quick else None)
    failed |= expression_language.main("run")  # the dice language against d20 and icepool
    failed |= roll_costs.run_isolated()  # a few seconds, the same in a quick run
    failed |= long_log.run_isolated()  # about 40 s: 5,000 events played, then the page
    failed |= fanout.main(quick=quick)
    print(f"make bench: {time.monotonic() - started:.0f} s; reports in bench/out/")
    sys.exit(failed)
