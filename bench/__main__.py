"""`make bench`: run every benchmark and write the reports under bench/out/."""

import sys

from bench import rules_speed

if __name__ == "__main__":
    sys.exit(rules_speed.main())
