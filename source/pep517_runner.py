# torchsolve's PEP 517 hook runner (source/pep517_runner.py).
#
# torchsolve starts it in a fresh interpreter, with the source tree as the
# working directory and a clean environment:
#
#   python -I pep517_runner.py hook CONTROL_DIR
#       CONTROL_DIR/input.json: {"hook": NAME, "backend": "mod:obj",
#       "backend_path": [...], "config_settings": {...} or null,
#       "directory": DIR, "metadata_directory": DIR or null}
#       writes CONTROL_DIR/output.json: {"ok": true, "value": ...,
#       "unsupported": bool} or {"ok": false, "error": TEXT}
#   python -I pep517_runner.py unpack ARCHIVE DEST
#       extracts an sdist (.tar.gz, .tar.bz2, .tar.xz, .tar, .zip) into
#       DEST, refusing members that leave DEST, links and special files
#
# The backend's own output goes to stdout/stderr (torchsolve keeps it in
# the build log).  Nothing here talks to the network or installs anything:
# the build environment is prepared by torchsolve before this runs.
import importlib
import json
import os
import sys
import traceback


def load_backend(spec, backend_path):
    mod_name, _, obj_path = spec.partition(":")
    paths = [os.path.abspath(p) for p in backend_path]
    if paths:
        sys.path[:0] = paths
    try:
        obj = importlib.import_module(mod_name)
    except ImportError:
        raise RuntimeError("cannot import build backend '%s'; is it in "
                           "build-system.requires?\n%s" % (mod_name, traceback.format_exc()))
    if paths:
        # PEP 517: an in-tree backend must come from backend-path
        origin = os.path.abspath(getattr(obj, "__file__", "") or "")
        if not any(origin == p or origin.startswith(p + os.sep) for p in paths):
            raise RuntimeError("build backend '%s' was loaded from %s, outside "
                               "backend-path %s" % (mod_name, origin, paths))
    for attr in filter(None, obj_path.split(".")):
        obj = getattr(obj, attr)
    return obj


def call_hook(inp):
    backend = load_backend(inp["backend"], inp.get("backend_path") or [])
    name = inp["hook"]
    cs = inp.get("config_settings")
    hook = getattr(backend, name, None)
    if name in ("get_requires_for_build_wheel", "get_requires_for_build_editable"):
        if hook is None:
            return [], False
        return list(hook(cs)), False
    if name in ("prepare_metadata_for_build_wheel", "prepare_metadata_for_build_editable"):
        if hook is None:
            return None, True
        return hook(inp["directory"], cs), False
    if name in ("build_wheel", "build_editable"):
        if hook is None:
            return None, True
        return hook(inp["directory"], cs, inp.get("metadata_directory")), False
    raise RuntimeError("unknown hook '%s'" % name)


def run_hook(control):
    with open(os.path.join(control, "input.json"), encoding="utf-8") as f:
        inp = json.load(f)
    try:
        value, unsupported = call_hook(inp)
        out = {"ok": True, "value": value, "unsupported": unsupported}
    except BaseException:
        text = traceback.format_exc()
        sys.stderr.write(text)
        out = {"ok": False, "error": text.strip().splitlines()[-1]}
    sys.stdout.flush()
    sys.stderr.flush()
    with open(os.path.join(control, "output.json"), "w", encoding="utf-8") as f:
        json.dump(out, f)
    return 0 if out["ok"] else 1


def inside(dest, name):
    target = os.path.realpath(os.path.join(dest, name))
    return target == dest or target.startswith(dest + os.sep)


def unpack(archive, dest):
    # one line for the caller, never a Python repr of the error
    if os.path.getsize(archive) == 0:
        raise SystemExit("the file is empty")
    import tarfile
    import zipfile
    try:
        return extract(archive, dest)
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as e:
        kind = "zip" if archive.lower().endswith(".zip") else "tar"
        why = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise SystemExit("not a readable %s archive (%s)" % (kind, why))


def extract(archive, dest):
    dest = os.path.realpath(dest)
    os.makedirs(dest, exist_ok=True)
    if archive.lower().endswith(".zip"):
        import zipfile
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                if os.path.isabs(info.filename) or not inside(dest, info.filename):
                    raise SystemExit("unsafe member '%s' in %s" % (info.filename, archive))
                mode = (info.external_attr >> 16) & 0o170000
                if mode not in (0, 0o100000, 0o040000):
                    continue  # links and special files are not extracted
                z.extract(info, dest)
                perm = (info.external_attr >> 16) & 0o777
                if perm & 0o111 and not info.is_dir():
                    os.chmod(os.path.join(dest, info.filename), 0o755)
        return 0
    import tarfile
    with tarfile.open(archive) as t:
        for m in t.getmembers():
            if os.path.isabs(m.name) or not inside(dest, m.name):
                raise SystemExit("unsafe member '%s' in %s" % (m.name, archive))
            if not (m.isfile() or m.isdir()):
                continue  # links, devices and fifos are not extracted
            m.mode = 0o755 if (m.isdir() or m.mode & 0o111) else 0o644
            m.uid = m.gid = 0
            m.uname = m.gname = ""
            t.extract(m, dest, set_attrs=m.isfile())
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "hook":
        return run_hook(argv[2])
    if len(argv) == 4 and argv[1] == "unpack":
        return unpack(argv[2], argv[3])
    sys.stderr.write("usage: pep517_runner.py hook CONTROL_DIR | unpack ARCHIVE DEST\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
