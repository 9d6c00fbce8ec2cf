"""Fan-out benchmark of live scenes (issue 8): see bench/fanout/run.py and bench/README.md."""
