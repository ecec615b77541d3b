#!/usr/bin/env python3
"""Record GPU golden outputs for the scheduling examples of the gallery.

Runs each example's kernel (web/examples/NAME.ptx) on a real NVIDIA GPU with
CuPy, with the buffers and launch geometry of its spec (web/examples/NAME.json),
and writes the contents of every buffer after the launch to
web/examples/gpu/NAME.golden.json. The Go test TestGPUGoldenFiles
(engine/launch) compares the emulator's independent-scheduling results with
these files.

Usage (from the repository root, on a machine with an sm_70 or newer GPU):

    python3 web/examples/gpu/record.py                # the three examples
    python3 web/examples/gpu/record.py spin-lock      # some of them

Needs Python 3.8+ and CuPy matching the CUDA driver (for example
`pip install cupy-cuda12x`). See README.md next to this script.
"""

import argparse
import datetime
import json
import os
import sys

try:
    import cupy
except ImportError:  # pragma: no cover - depends on the machine
    sys.exit("record.py needs CuPy (pip install cupy-cuda12x, or the package for your CUDA version)")

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.dirname(HERE)

# The examples whose outcome depends on the scheduling model; on a GPU of
# compute capability 7.0 or later they must complete.
DEFAULT = ["spin-lock", "producer-consumer", "syncwarp"]

# Element types of the launch spec: (CuPy/NumPy dtype name, bits, kind).
TYPES = {
    "u8": ("uint8", 8, "u"), "u16": ("uint16", 16, "u"), "u32": ("uint32", 32, "u"), "u64": ("uint64", 64, "u"),
    "b8": ("uint8", 8, "u"), "b16": ("uint16", 16, "u"), "b32": ("uint32", 32, "u"), "b64": ("uint64", 64, "u"),
    "s8": ("int8", 8, "s"), "s16": ("int16", 16, "s"), "s32": ("int32", 32, "s"), "s64": ("int64", 64, "s"),
    "f16": ("float16", 16, "f"), "f32": ("float32", 32, "f"), "f64": ("float64", 64, "f"),
}


def type_of(typ):
    if typ not in TYPES:
        raise SystemExit("buffer type %r is not supported by record.py" % typ)
    return TYPES[typ]


def number(v):
    """A spec value: a JSON number or a string such as "0x10" or "1.5"."""
    if isinstance(v, (int, float)):
        return v
    s = str(v).strip()
    try:
        return int(s, 0)
    except ValueError:
        return float(s)


def wrap(v, typ):
    """v as an element of typ: integers wrap modulo 2^bits (as the spec's
    iota does), floats stay floats."""
    _, bits, kind = type_of(typ)
    if kind == "f":
        return float(v)
    v = int(v) % (1 << bits)
    if kind == "s" and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def initial(buf):
    """The elements a spec buffer starts with (zeros without init)."""
    typ, n = buf["type"], int(buf["count"])
    init = buf.get("init") or {}
    if not init:
        return [wrap(0, typ)] * n
    if "fill" in init:
        return [wrap(number(init["fill"]), typ)] * n
    if "iota" in init:
        it = init["iota"] or {}
        start, step = number(it.get("start", 0)), number(it.get("step", 1))
        return [wrap(start + i * step, typ) for i in range(n)]
    if "values" in init:
        vals = [wrap(number(v), typ) for v in init["values"]]
        return (vals + [wrap(0, typ)] * n)[:n]
    raise SystemExit("buffer %s: init %s is not supported by record.py (use fill, iota or values)" % (buf["name"], list(init)))


def scalar(param):
    """A scalar kernel argument as a 0-d CuPy array of the parameter's type."""
    vals = param.get("values", param.get("value"))
    if isinstance(vals, list):
        if len(vals) != 1:
            raise SystemExit("array parameters are not supported by record.py")
        vals = vals[0]
    dtype = type_of(param["type"])[0]
    return cupy.dtype(dtype).type(wrap(number(vals), param["type"]))


def record(name, out_dir):
    spec_path = os.path.join(EXAMPLES, name + ".json")
    with open(spec_path) as f:
        spec = json.load(f)
    ptx_path = os.path.join(EXAMPLES, spec["ptx"])
    grid = tuple(spec.get("grid", [1])) + (1,) * (3 - len(spec.get("grid", [1])))
    block = tuple(spec["block"]) + (1,) * (3 - len(spec["block"]))

    # A PTX file is loaded by path (the driver JIT-compiles it); the code=
    # argument of RawModule takes CUDA C++ source, not PTX.
    module = cupy.RawModule(path=ptx_path)
    kernel = module.get_function(spec["entry"])

    dev = {}
    for buf in spec.get("buffers", []):
        dev[buf["name"]] = cupy.array(initial(buf), dtype=type_of(buf["type"])[0])
    args = []
    for p in spec.get("params", []):
        if "buffer" in p:
            if p.get("offset"):
                raise SystemExit("%s: buffer offsets are not supported by record.py" % name)
            args.append(dev[p["buffer"]])
        else:
            args.append(scalar(p))
    shared = int(spec.get("dynamicSharedBytes", 0))
    kernel(grid, block, tuple(args), shared_mem=shared)
    cupy.cuda.runtime.deviceSynchronize()

    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    devname = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    result = {
        "example": name,
        "spec": name + ".json",
        "scheduling": "independent",
        "device": devname,
        "computeCapability": "%d.%d" % (props["major"], props["minor"]),
        "driverVersion": cupy.cuda.runtime.driverGetVersion(),
        "cupyVersion": cupy.__version__,
        "recorded": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "buffers": {},
    }
    for buf in spec.get("buffers", []):
        if buf.get("output") is False:
            continue
        vals = cupy.asnumpy(dev[buf["name"]]).tolist()
        result["buffers"][buf["name"]] = {"type": buf["type"], "values": vals}
    path = os.path.join(out_dir, name + ".golden.json")
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print("%s: wrote %s (%s, sm %s)" % (name, os.path.relpath(path), devname, result["computeCapability"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("examples", nargs="*", default=DEFAULT, help="example names (default: %s)" % " ".join(DEFAULT))
    ap.add_argument("--out", default=HERE, help="directory for the golden files (default: this script's)")
    a = ap.parse_args()
    major = cupy.cuda.Device().compute_capability
    if int(major) < 70:
        sys.exit("the GPU has compute capability %s: the examples need independent thread scheduling (7.0 or later)" % major)
    for name in a.examples:
        record(name, a.out)


if __name__ == "__main__":
    main()
