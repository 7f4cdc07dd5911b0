#!/usr/bin/env python3
"""Checks char-lm --data-parallel under mpiexec against one process.

usage: check-data-parallel.py MPIEXEC CHAR_LM CACHE_DIR ARGS...

Runs `mpiexec -n 2 char-lm --data-parallel --batch B ARGS` with
KILN_LOG=comm, then `char-lm --batch 2B ARGS` in one process, and checks:
  - the two loss curves (the loss of every step, as printed) agree: the
    job trains on the batch the single process trains on;
  - only rank 0 printed the steps;
  - rank 0's trace shows the first gradient bucket of the last step
    started before the step's last bucket, i.e. before backward had made
    its last gradients, and waited for only after that: the step went on
    computing while it was reduced.
"""

import os
import re
import shutil
import subprocess
import sys

STEP = re.compile(r"^step +(\d+)/\d+ .* loss ([0-9.]+) ", re.M)
TRACE = re.compile(r"kiln: comm rank 0: all_reduce #(\d+) (started|reduced) "
                   r"\(\w+ of (\d+) x \w+, [0-9.]+ MiB\)")
WAITED = re.compile(r"kiln: comm rank 0: all_reduce #(\d+) waited for")


def run(cmd, env):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True,
                       timeout=900)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr[-4000:])
    if p.returncode:
        sys.exit("%s exited with %d" % (cmd[0], p.returncode))
    return p.stdout, p.stderr


def main():
    mpiexec, exe, cache, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    batch = 4
    env = dict(os.environ, KILN_CACHE_DIR=cache,
               OMPI_MCA_btl_vader_single_copy_mechanism="none")
    shutil.rmtree(cache, ignore_errors=True)
    out2, err2 = run([mpiexec, "--allow-run-as-root", "--oversubscribe", "-n",
                      "2", exe, "--data-parallel", "--batch", str(batch)] + args,
                     dict(env, KILN_LOG="comm"))
    out1, _ = run([exe, "--batch", str(2 * batch)] + args, env)
    shutil.rmtree(cache, ignore_errors=True)

    two = [(int(s), float(l)) for s, l in STEP.findall(out2)]
    one = [(int(s), float(l)) for s, l in STEP.findall(out1)]
    if not one or [s for s, _ in two] != [s for s, _ in one]:
        sys.exit("the runs printed different steps: %s and %s" % (two, one))
    if "data parallel: 2 ranks of %d rows each" % batch not in out2:
        sys.exit("the job did not run on 2 ranks")
    for (s, a), (_, b) in zip(two, one):
        if abs(a - b) > 2e-3 * b + 1e-4:
            sys.exit("step %d: loss %.4f on 2 ranks, %.4f in one process"
                     % (s, a, b))
    print("loss curves agree over %d steps (last %.4f and %.4f)"
          % (len(one), two[-1][1], one[-1][1]))

    # The last step's collectives: the loss (1 element) and the buckets.
    lines = [l for l in err2.splitlines() if l.startswith("kiln: comm rank 0")]
    events = []
    for l in lines:
        m = TRACE.match(l)
        if m:
            events.append((int(m.group(1)), m.group(2), int(m.group(3))))
        m = WAITED.match(l)
        if m:
            events.append((int(m.group(1)), "waited", 0))
    if not events:
        sys.exit("no KILN_LOG=comm trace from rank 0")
    # Every step makes the same collectives: the last step's are the last
    # (all of them / steps).
    last_seq = max(n for n, _, _ in events)
    per_step = (last_seq + 1) // len(one)
    buckets = sorted({n for n, _, c in events if c > 1})
    step_buckets = [n for n in buckets if n > last_seq - per_step]
    if len(step_buckets) < 2:
        sys.exit("the last step reduced %d gradient buckets; the model is too "
                 "small to show the overlap" % len(step_buckets))
    first, final = step_buckets[0], step_buckets[-1]
    order = [(n, what) for n, what, _ in events]
    # When a reduction ends depends on the other rank's pace (this host
    # runs both): the order checked is the step's own.
    first_started = order.index((first, "started"))
    started_at = order.index((final, "started"))
    waited_at = order.index((first, "waited"))
    if first_started > started_at or waited_at < started_at:
        sys.exit("the step waited for bucket #%d before bucket #%d started: "
                 "no overlap with backward" % (first, final))
    reduced_at = order.index((first, "reduced"))
    print("all_reduce #%d (first bucket) started before #%d (last bucket) "
          "and was waited for after it; it was reduced %s"
          % (first, final, "before #%d started" % final
             if reduced_at < started_at else "after #%d started" % final))


if __name__ == "__main__":
    main()
