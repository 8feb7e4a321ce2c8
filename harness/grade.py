#!/usr/bin/env python3
"""grade.py: grades a class of day 33 three-way submissions on a GPU machine.

    python3 harness/grade.py CLASS --out DIR [--jobs N] [--gpus 0,1] ...
    python3 harness/grade.py merge OUT1 OUT2 ... --out DIR
    python3 harness/grade.py --help

The tool is the package harness/grader/ (one module per stage);
harness/GRADING.md documents the rule, the verdicts, the scores and the
outputs. Standard library only (python3 >= 3.8).
"""

import os
import sys

if sys.version_info < (3, 8):   # one line, not a traceback (RHEL 8: 3.6)
    sys.exit("grade.py: Python 3.8 or newer is needed; this is %d.%d (%s): "
             "run it with a newer python3 (e.g. module load python/3.11)"
             % (sys.version_info[0], sys.version_info[1], sys.executable))
sys.dont_write_bytecode = True  # no __pycache__ in the repository
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from grader import cli  # noqa: E402

if __name__ == "__main__":
    sys.exit(cli.main(sys.argv[1:]))
