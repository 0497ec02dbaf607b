#!/usr/bin/env python3
"""Runs a command and reports its peak resident memory, for bench/tpch/run.mjs --rss.

    python3 bench/tpch/maxrss.py COMMAND [ARG ...]

The command inherits stdin, stdout and stderr; once it has ended, the last line of stderr is
`shoal-bench maxrss_kib N`: getrusage(RUSAGE_CHILDREN).ru_maxrss, the kernel's high-water mark of
the resident set of the largest process waited for (the command, or a child of its own that it
waited for), in KiB. The kernel keeps that mark itself, so no peak is missed, as polling
/proc/PID/status would. The exit status is the command's (128 + N when signal N killed it).

The mark is a maximum, not a sum: the child is this interpreter until its exec, and the kernel
keeps the larger of that resident set (about 14 MiB) and the command's own peak, so a command that
peaks above it is measured exactly and one that stays below reads as about 14 MiB.
"""
import resource
import subprocess
import sys

run = subprocess.run(sys.argv[1:], check=False)
kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
# A newline first in case the command's stderr did not end with one.
sys.stderr.write(f'\nshoal-bench maxrss_kib {kib}\n')
sys.exit(run.returncode if run.returncode >= 0 else 128 - run.returncode)
