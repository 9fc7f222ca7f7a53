#!/usr/bin/env python3
"""scripts/bench-compare.py: two builds of tern measured against each other.

`make bench-compare A=REV B=REV ...` (run): each revision is checked out in
a git worktree of its own under build/compare/, built in release (the
normal -O2 -g) or debug (-O0 -g, run with TERN_BENCH_ALLOW_DEBUG=1) form,
and the chosen benchmarks run alternately, A B A B, for ROUNDS rounds. The
BENCH {json} lines each run prints (shared/design/BENCHMARKS.md) are
collected, and per case and metric the script prints both sides' median
and min-max over the rounds, B/A, and the slowdown of B (how many times
slower B is than A, in the metric's "better" direction), then the same as
BENCH lines. `report` does the arithmetic alone on saved outputs
(tests/integration/test_bench_compare.sh).
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time

# Benchmarks that run in their own process only; the others drive the
# daemons, so their worktree builds everything.
IN_PROCESS = ("ipc", "fib", "fastpath")
# Fields besides the case that tell two figures of one case apart.
QUALIFIERS = ("variant", "backend", "xdp_tx")
BUILD_CFLAGS = {"release": None, "debug": "-O0 -g"}


# ---- the arithmetic ---------------------------------------------------------

def parse_bench(text):
    """The BENCH {json} lines of one run's output, as dicts."""
    out = []
    for line in text.splitlines():
        if not line.startswith("BENCH "):
            continue
        try:
            b = json.loads(line[6:])
        except ValueError:
            continue
        if isinstance(b, dict) and "value" in b and "metric" in b:
            out.append(b)
    return out


def figures(lines):
    """One run's figures: key -> (value, unit, better). Ours ("value") once
    per case and metric; with a peer, also ours/peer of the same run (the
    figure the benchmarks call ratio) as a figure of its own."""
    figs = {}
    for b in lines:
        qual = tuple((q, str(b[q])) for q in QUALIFIERS if q in b)
        base = (b.get("bench", "?"), b.get("case", "?"), qual)
        key = base + (b["metric"],)
        if key not in figs:
            figs[key] = (float(b["value"]), b.get("unit", ""),
                         b.get("better"))
        if "peer" in b and b.get("ratio") is not None:
            rkey = base + ("%s vs %s" % (b["metric"], b["peer"]),)
            if rkey not in figs:
                figs[rkey] = (float(b["ratio"]), "x", b.get("better"))
    return figs


def collect(runs):
    """Figures of several runs of one side: key -> ([values], unit, better),
    keys in the order they first appear."""
    out = {}
    for figs in runs:
        for key, (v, unit, better) in figs.items():
            if key not in out:
                out[key] = ([], unit, better)
            out[key][0].append(v)
    return out


def slowdown(a, b, better):
    """How many times slower B is than A: > 1 B is worse, < 1 B is better.
    None when it cannot be said (a zero, or no direction)."""
    if better == "higher":
        return a / b if b != 0 else None
    if better == "lower":
        return b / a if a != 0 else None
    return None


def verdict(av, bv, sd):
    """"same" (both exact and equal), "noise" (the min-max ranges overlap),
    else "B slower" / "B faster"."""
    amin, amax, bmin, bmax = min(av), max(av), min(bv), max(bv)
    if amin == amax == bmin == bmax:
        return "same"
    if amin <= bmax and bmin <= amax:
        return "noise"
    if sd is None:
        return "differs"
    return "B slower" if sd > 1 else "B faster"


def compare(a_runs, b_runs):
    """Rows of the table: one per key present on either side."""
    a, b = collect(a_runs), collect(b_runs)
    keys = list(a) + [k for k in b if k not in a]
    rows = []
    for key in keys:
        row = {"key": key}
        for side, got in (("a", a), ("b", b)):
            if key in got:
                vals, unit, better = got[key]
                row[side] = {"median": statistics.median(vals),
                             "min": min(vals), "max": max(vals),
                             "n": len(vals)}
                row["unit"], row["better"] = unit, better
        if "a" in row and "b" in row:
            am, bm = row["a"]["median"], row["b"]["median"]
            row["ratio"] = bm / am if am != 0 else None
            row["slowdown"] = slowdown(am, bm, row["better"])
            row["verdict"] = verdict(a[key][0], b[key][0], row["slowdown"])
        else:
            row["verdict"] = "only in A" if "a" in row else "only in B"
        rows.append(row)
    return rows


def fmt(v):
    return "-" if v is None else "%.4g" % v


def case_label(key):
    bench, case, qual, _ = key
    return " ".join([bench, case] + ["%s=%s" % q for q in qual])


def side_cell(s):
    if s is None:
        return "-"
    return "%s [%s-%s]" % (fmt(s["median"]), fmt(s["min"]), fmt(s["max"]))


def print_table(rows, out=sys.stdout):
    head = ("case", "metric", "unit", "A median [min-max]",
            "B median [min-max]", "B/A", "slowdown", "verdict")
    cells = [head]
    for r in rows:
        cells.append((case_label(r["key"]), r["key"][3], r.get("unit", ""),
                      side_cell(r.get("a")), side_cell(r.get("b")),
                      fmt(r.get("ratio")),
                      "-" if r.get("slowdown") is None else
                      "%.3fx" % r["slowdown"], r["verdict"]))
    w = [max(len(c[i]) for c in cells) for i in range(len(head))]
    for c in cells:
        print("  ".join(c[i].ljust(w[i]) for i in range(len(head))).rstrip(),
              file=out)


def print_json(rows, a_label, b_label, out=sys.stdout):
    """The table as BENCH lines: B is "ours", A the peer, ratio = B/A."""
    for r in rows:
        if "a" not in r or "b" not in r:
            continue
        bench, case, qual, metric = r["key"]
        j = {"bench": "compare", "of": bench, "case": case}
        j.update(dict(qual))
        j.update({"metric": metric, "unit": r["unit"],
                  "value": r["b"]["median"], "min": r["b"]["min"],
                  "max": r["b"]["max"], "peer": "A",
                  "peer_value": r["a"]["median"], "peer_min": r["a"]["min"],
                  "peer_max": r["a"]["max"], "ratio": r["ratio"],
                  "slowdown": r["slowdown"], "verdict": r["verdict"],
                  "rounds_a": r["a"]["n"], "rounds_b": r["b"]["n"],
                  "a": a_label, "b": b_label})
        if r["better"] is not None:
            j["better"] = r["better"]
        print("BENCH " + json.dumps(j, separators=(",", ":")), file=out)


def report(a_runs, b_runs, a_label, b_label, rounds_note=""):
    rows = compare(a_runs, b_runs)
    print("\nbench-compare: A = %s, B = %s%s" % (a_label, b_label,
                                                  rounds_note))
    print("B/A = B's median / A's; slowdown = how many times slower B is "
          "than A in the metric's better direction (> 1: B slower); "
          "min-max over the rounds; verdict \"noise\" when the two ranges "
          "overlap. \"M vs PEER\" rows are each side's ratio to the peer "
          "of its own run.")
    print_table(rows)
    print()
    print_json(rows, a_label, b_label)
    return rows


# ---- building and running ---------------------------------------------------

def git(top, *args, check=True):
    r = subprocess.run(["git", "-C", top] + list(args), capture_output=True,
                       text=True)
    if check and r.returncode != 0:
        sys.exit("bench-compare: git %s: %s" % (" ".join(args),
                                                r.stderr.strip()))
    return r


def make_env(build):
    """The environment of a worktree's make and benchmarks: none of this
    make's variables (A, B, BENCH, ... travel in MAKEFLAGS)."""
    env = dict(os.environ)
    for v in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "CFLAGS",
              "TERN_BENCH_ALLOW_DEBUG"):
        env.pop(v, None)
    if build == "debug":
        env["TERN_BENCH_ALLOW_DEBUG"] = "1"
    return env


class Side:
    def __init__(self, name, rev, build, top):
        self.name, self.rev, self.build = name, rev, build
        self.sha = git(top, "rev-parse", "--verify",
                       rev + "^{commit}").stdout.strip()
        self.dir = os.path.join(top, "build", "compare",
                                "%s-%s" % (self.sha[:12], build))
        self.label = "%s (%s, %s)" % (rev, self.sha[:10], build)
        self.runs = {}   # bench -> [figures of each run]

    def has_bench(self, top, bench):
        return git(top, "cat-file", "-e", "%s:tests/bench/bench_%s.c" %
                   (self.sha, bench), check=False).returncode == 0


def worktree_add(top, side, made):
    if side.dir in made:
        return
    if os.path.isdir(side.dir):
        head = git(side.dir, "rev-parse", "HEAD", check=False).stdout.strip()
        if head != side.sha:
            git(top, "worktree", "remove", "--force", side.dir)
    if not os.path.isdir(side.dir):
        os.makedirs(os.path.dirname(side.dir), exist_ok=True)
        git(top, "worktree", "add", "--detach", side.dir, side.sha)
        print("bench-compare: worktree %s at %s" % (
            os.path.relpath(side.dir, top), side.label))
    else:
        print("bench-compare: reusing worktree %s (%s)" % (
            os.path.relpath(side.dir, top), side.label))
    made.append(side.dir)


def build_bench(side, bench, jobs, dpdk, logdir):
    targets = ["build/bin/bench-%s" % bench]
    if bench not in IN_PROCESS:
        targets.append("all")
    cmd = ["nice", "make", "-C", side.dir, "--no-print-directory",
           "-j%d" % jobs] + targets
    if BUILD_CFLAGS[side.build]:
        cmd.append("CFLAGS=" + BUILD_CFLAGS[side.build])
    if dpdk:
        cmd.append("DPDK=" + dpdk)
    log = os.path.join(logdir, "build-%s-%s-%s.txt" % (side.name, bench,
                                                      side.build))
    t0 = time.time()
    with open(log, "w") as f:
        rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT,
                            env=make_env(side.build)).returncode
    if rc != 0:
        with open(log) as f:
            tail = f.read().splitlines()[-8:]
        print("bench-compare: %s: make %s failed (exit %d; %s):\n  %s" % (
            side.label, " ".join(targets), rc, log, "\n  ".join(tail)))
        return False
    print("bench-compare: %s: built bench-%s (%.0f s)" % (
        side.label, bench, time.time() - t0))
    return True


def run_bench(side, bench, args, rnd, timeout, logdir):
    """One run: (figures, None, False), or (None, why it does not count,
    whether the benchmark refused to run: exit 2)."""
    exe = os.path.join(side.dir, "build", "bin", "bench-" + bench)
    log = os.path.join(logdir, "%s-r%d-%s.txt" % (bench, rnd, side.name))
    t0 = time.time()
    # its own process group, so that a timeout or ^C also stops what it
    # forked (bench-ipc's servers, valgrind's child)
    p = subprocess.Popen([exe] + args, cwd=side.dir, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True,
                         env=make_env(side.build), start_new_session=True)
    try:
        text, _ = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        text, _ = p.communicate()
        rc = "timeout after %d s" % timeout
    except KeyboardInterrupt:
        os.killpg(p.pid, signal.SIGKILL)
        raise
    with open(log, "w") as f:
        f.write(text)
    figs = figures(parse_bench(text))
    secs = time.time() - t0
    if rc != 0:
        why = "exit %s" % rc
        for line in text.splitlines():
            if "refusing to benchmark" in line or line.startswith("usage"):
                why += ": " + line.strip()
                break
        return None, "%s (%s)" % (why, log), rc == 2
    if not figs:
        return None, "no BENCH lines (%s)" % log, False
    print("round %d  %-9s %s  %-40s %5.1f s  %d figures" % (
        rnd, bench, side.name, side.label, secs, len(figs)))
    for line in text.splitlines():
        if "WARNING" in line and rnd == 1:
            print("    " + line.strip())
    return figs, None, False


def remove_worktrees(top, made):
    for d in made:
        r = git(top, "worktree", "remove", "--force", d, check=False)
        print("bench-compare: removed worktree %s%s" % (
            os.path.relpath(d, top),
            "" if r.returncode == 0 else " FAILED: " + r.stderr.strip()))
    git(top, "worktree", "prune", check=False)


def cmd_run(o):
    top = git(os.getcwd(), "rev-parse", "--show-toplevel").stdout.strip()
    if not o.a:
        sys.exit("bench-compare: A=REV is required "
                 "(make bench-compare A=REV [B=REV] ...)")
    builds = o.build.split(",")
    if len(builds) == 1:
        builds *= 2
    ba, bb = o.build_a or builds[0], o.build_b or builds[1]
    for bl in (ba, bb):
        if bl not in BUILD_CFLAGS:
            sys.exit("bench-compare: BUILD is release or debug, not %r" % bl)
    if o.rounds < 3:
        sys.exit("bench-compare: ROUNDS must be at least 3")
    benches = [b for b in o.bench.replace(" ", ",").split(",") if b]
    a = Side("A", o.a, ba, top)
    b = Side("B", o.b, bb, top)
    if a.sha == b.sha and a.build == b.build:
        print("bench-compare: A and B are the same build: the table shows "
              "the noise")
    logdir = os.path.join(top, "build", "compare", "logs")
    shutil.rmtree(logdir, ignore_errors=True)
    os.makedirs(logdir)
    args = (["--quick"] if o.quick else []) + (o.bench_args.split()
                                               if o.bench_args else [])
    own = {}  # bench -> its own extra arguments (ARGS_fib=...)
    for a_ in o.args or []:
        name, _, rest = a_.partition("=")
        own[name] = rest.split()
    timeout = 900 if o.quick else 7200
    made = []
    try:
        todo = []
        for bench in benches:
            missing = [s for s in (a, b) if not s.has_bench(top, bench)]
            if missing:
                print("bench-compare: skipping %s: %s %s no "
                      "tests/bench/bench_%s.c" % (
                          bench, " and ".join(s.label for s in missing),
                          "have" if len(missing) > 1 else "has", bench))
                continue
            todo.append(bench)
        for s in (a, b):
            if todo:
                worktree_add(top, s, made)
        for bench in list(todo):
            # one worktree when A and B are the same build
            for s in {x.dir: x for x in (a, b)}.values():
                if bench in todo and not build_bench(s, bench, o.jobs,
                                                     o.dpdk, logdir):
                    print("bench-compare: skipping %s" % bench)
                    todo.remove(bench)
        print("bench-compare: %s, %d rounds of A B, arguments: %s" % (
            ", ".join("bench-" + x for x in todo) or "nothing to run",
            o.rounds, "; ".join("bench-%s %s" % (x, " ".join(
                args + own.get(x, [])) or "(none)") for x in todo)))
        for rnd in range(1, o.rounds + 1):
            for bench in list(todo):
                for s in (a, b):
                    figs, why, refused = run_bench(
                        s, bench, args + own.get(bench, []), rnd, timeout,
                        logdir)
                    if figs is not None:
                        s.runs.setdefault(bench, []).append(figs)
                        continue
                    print("round %d  %-9s %s  %s: not counted: %s" % (
                        rnd, bench, s.name, s.label, why))
                    if refused and rnd == 1:
                        print("bench-compare: skipping %s (%s refused the "
                              "build or the arguments)" % (bench, s.label))
                        todo.remove(bench)
                        break
        for bench in benches:
            if bench not in todo:
                continue
            ra, rb = a.runs.get(bench, []), b.runs.get(bench, [])
            report(ra, rb, a.label, b.label,
                   "; bench-%s, %d runs of A and %d of B alternated "
                   "(A B A B ...)%s" % (bench, len(ra), len(rb),
                                        ", --quick" if o.quick else ""))
        print("\nbench-compare: outputs in %s" % os.path.relpath(logdir, top))
    finally:
        if o.keep:
            print("bench-compare: worktrees kept (KEEP=1): %s" % " ".join(
                os.path.relpath(d, top) for d in made))
        else:
            remove_worktrees(top, made)


def cmd_report(o):
    def load(files):
        runs = []
        for f in files:
            with open(f) as fh:
                runs.append(figures(parse_bench(fh.read())))
        return runs
    report(load(o.a_log), load(o.b_log), o.a_label, o.b_label)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="build two revisions and compare them")
    r.add_argument("--a", required=True)
    r.add_argument("--b", default="HEAD")
    r.add_argument("--bench", default="ipc,fib,fastpath")
    r.add_argument("--build", default="release",
                   help="release, debug, or A's,B's (release,debug)")
    r.add_argument("--build-a")
    r.add_argument("--build-b")
    r.add_argument("--rounds", type=int, default=3)
    r.add_argument("-j", dest="jobs", type=int, default=2)
    r.add_argument("--quick", action="store_true")
    r.add_argument("--keep", action="store_true")
    r.add_argument("--dpdk", help="DPDK=... for the worktrees' make")
    r.add_argument("--bench-args", help="more arguments for every benchmark")
    r.add_argument("--args", action="append", metavar="NAME=ARGS",
                   help="more arguments for bench-NAME only")
    q = sub.add_parser("report", help="the table from saved outputs")
    q.add_argument("--a-log", action="append", required=True)
    q.add_argument("--b-log", action="append", required=True)
    q.add_argument("--a-label", default="A")
    q.add_argument("--b-label", default="B")
    o = p.parse_args()
    if o.cmd == "run":
        cmd_run(o)
    else:
        cmd_report(o)


if __name__ == "__main__":
    main()
