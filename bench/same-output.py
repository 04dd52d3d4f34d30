#!/usr/bin/env python3
"""bench/same-output.py OLD NEW — are two torchsolve binaries' answers the
same, byte for byte, on the benchmark world?

A refactor must not change behaviour.  Unit and integration tests cover
cases; this covers the world the benchmarks run on: for every resolve
scenario of ../shared/bench/scenarios.yaml (a, b, c, c2 and every
resolvelib case) both binaries write `install --dry-run --report` JSON,
and for a, b and c both write a `lock` (pylock.toml) and a two-profile
`lock --profile` fleet lock.  Each pair of outputs (and the exit status)
must be identical and non-empty.  Both binaries run against one served copy of the
world, with cold caches of their own, so URLs and ports agree.

  bench/same-output.py OLD_BINARY NEW_BINARY [--only NAME,...]

Environment: WORLD (default /tmp/torchsolve-bench-world; made with
make-world when missing), TS_SHARED_DIR (default ../shared beside the
checkout).  Exit 0 when everything is identical, 1 on any difference
(each named with a unified diff head), 2 on a usage error.
"""
import difflib
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(HERE)


def load_compare(shared):
    path = os.path.join(shared, "bench", "compare")
    loader = importlib.machinery.SourceFileLoader("bench_compare", path)
    spec = importlib.util.spec_from_loader("bench_compare", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def run(binary, args, cache, out_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["XDG_CACHE_HOME"] = cache
    r = subprocess.run([binary] + args, env=env, capture_output=True, timeout=600)
    body = b""
    if os.path.exists(out_path):
        with open(out_path, "rb") as f:
            body = f.read()
    return r.returncode, body


GPU_OPTIONS = ("--cuda", "--rocm", "--gfx", "--compute-capability", "--cuda-driver",
               "--torch-backend")


def without_gpu_options(args):
    """A fleet lock names each machine's GPU stack by --profile alone."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in GPU_OPTIONS:
            skip = True
        elif not a.startswith(tuple(o + "=" for o in GPU_OPTIONS)):
            out.append(a)
    return out


def jobs_for(sc, urls, venv_python, lock_too):
    common = ["--python", venv_python, "--index-url", urls["pypi"],
              "--torch-index-url", urls["pytorch"]]
    base = common + sc["args"]["torchsolve"]
    fleet = common + without_gpu_options(sc["args"]["torchsolve"])
    reqs = ["--"] + sc["requirements"]
    out = [("report", lambda o: ["install", "--dry-run", "--quiet", "--report", o] + base + reqs)]
    if lock_too:
        out.append(("lock", lambda o: ["lock", "-o", o] + base + reqs))
        out.append(("fleet", lambda o: ["lock", "-o", o, "--profile", "cpu",
                                        "--profile", "cu126"] + fleet + reqs))
    return out


def main(argv):
    args = [a for a in argv if not a.startswith("--only")]
    only = None
    for i, a in enumerate(argv):
        if a == "--only" and i + 1 < len(argv):
            only = set(argv[i + 1].split(","))
            args.remove(argv[i + 1])
        elif a.startswith("--only="):
            only = set(a.split("=", 1)[1].split(","))
    if len(args) != 2 or not all(os.access(b, os.X_OK) for b in args):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("same-output: give two executable torchsolve binaries", file=sys.stderr)
        return 2
    old, new = (os.path.realpath(b) for b in args)
    shared = os.environ.get("TS_SHARED_DIR") or os.path.join(ROOT, "..", "shared")
    if not os.path.isdir(os.path.join(shared, "bench")):
        shared = "/work/shared"
    compare = load_compare(shared)
    world = os.environ.get("WORLD", "/tmp/torchsolve-bench-world")
    if not os.path.isfile(os.path.join(world, "WORLD.json")):
        subprocess.run([os.path.join(shared, "bench", "make-world"), world], check=True)
    scenarios = [s for s in compare.load_scenarios(os.path.join(shared, "bench", "scenarios.yaml"), shared)
                 if s.get("kind", "resolve") == "resolve"]
    if only:
        scenarios = [s for s in scenarios if s["name"] in only or s["name"].split("/")[0] in only]
    work = tempfile.mkdtemp(prefix="ts-same-output.")
    server = None
    try:
        server, url, _, _ = compare.start_server(world, work, False)
        urls = {"pypi": url + "/pypi/simple/", "pytorch": url + "/pytorch/whl"}
        venv = os.path.join(work, "venv")
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
        py = os.path.join(venv, "bin", "python")
        differ = compared = 0
        for sc in scenarios:
            lock_too = sc["name"].split("-")[0] in ("a", "b", "c")
            for kind, make in jobs_for(sc, urls, py, lock_too):
                answers = []
                for tag, binary in (("old", old), ("new", new)):
                    cache = os.path.join(work, "cache-" + tag)
                    shutil.rmtree(cache, ignore_errors=True)
                    out = os.path.join(work, "%s.%s" % (tag, kind))
                    if os.path.exists(out):
                        os.unlink(out)
                    answers.append(run(binary, make(out), cache, out))
                compared += 1
                (rc_a, a), (rc_b, b) = answers
                if rc_a == rc_b and a == b and a:
                    continue
                if rc_a == rc_b and a == b:
                    differ += 1
                    print("NO OUTPUT %s %s from either binary (exit %d)" % (sc["name"], kind, rc_a))
                    continue
                differ += 1
                print("DIFFERENT %s %s (exit %d vs %d)" % (sc["name"], kind, rc_a, rc_b))
                diff = difflib.unified_diff(a.decode(errors="replace").splitlines(),
                                            b.decode(errors="replace").splitlines(),
                                            "old", "new", lineterm="", n=1)
                for line in list(diff)[:20]:
                    print("  " + line)
        print("same-output: %d outputs compared, %d identical, %d different"
              % (compared, compared - differ, differ))
        return 1 if differ else 0
    finally:
        if server is not None:
            compare.stop_server(server)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
