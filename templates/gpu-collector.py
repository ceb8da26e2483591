#!/usr/bin/python3
# gpuform GPU collector (rendered by gpuform; installed by cloud-init, run by systemd).
#
#   gpuform-gpu collect EXPECTED [nvidia|amd]
#                        once a minute (gpuform-gpu-collect.timer): one JSON line per GPU into
#                        /var/log/gpuform/gpu-YYYYMMDD.json, read by the Azure Monitor Agent
#                        (data collection rule, logFiles/json) into the GpuTelemetry_CL table;
#                        a VM whose GPU tool fails, or that shows fewer GPUs than its size has,
#                        writes one health row (Status != "ok") instead.
#                        NVIDIA: nvidia-smi. AMD: amd-smi (ROCm 6.x; both JSON shapes), else
#                        rocm-smi (older images); GPUs counted on the PCI bus too. An AMD image
#                        without either tool writes `tool-missing` rows and stays healthy.
#   gpuform-gpu serve    the health endpoint the Application Health extension probes
#                        (127.0.0.1 only): 200 {"ApplicationHealthState": "Healthy"} while the
#                        last sample is fresh and healthy, 200 "Unhealthy" otherwise (the
#                        extension's rich states: a 2xx carries the state; a non-2xx answer
#                        would read as Unknown, not Unhealthy).
#
# Logs Ingestion path (monitoring.gpu.delivery; the collect service's environment, set by the
# template): after each sample the collector posts the rows not yet sent to
# GPUFORM_INGEST_ENDPOINT + GPUFORM_INGEST_ROUTE ({ruleId} = GPUFORM_INGEST_DCR, {stream} =
# GPUFORM_INGEST_STREAM) with the api-version GPUFORM_INGEST_API_VERSION, as JSON arrays of at
# most GPUFORM_INGEST_MAX_BYTES,
# with a bearer token for the pool's identity (GPUFORM_INGEST_CLIENT_ID, audience
# GPUFORM_INGEST_AUDIENCE) from GPUFORM_INGEST_TOKEN_URL (the instance metadata service). A 429
# or 5xx is retried after Retry-After (else 1, 2, 4 s); what is still not sent stays in the log
# files and goes with the next sample. The token is never written anywhere.
#
# The instance metadata service's compute endpoint (priority, VM id) is GPUFORM_IMDS_URL, set by
# the collect service from gpuform's facts; without it the rows carry no priority or VM id.
# GPU-utilisation scaling (autoscale.gpuUtilization of a serving pool; the collect service's
# environment, set by the template): after each sample the collector posts one metric item,
# GPUFORM_APPI_METRIC = the mean utilisation over the VM's GPUs that answered ("ok" rows), to
# the IngestionEndpoint of GPUFORM_APPI_CONNECTION (the component's connection string) +
# GPUFORM_APPI_ROUTE (the track protocol), without a namespace (the Azure.ApplicationInsights
# namespace autoscale reads), with a token for the pool's identity (GPUFORM_APPI_CLIENT_ID,
# audience GPUFORM_APPI_AUDIENCE) from GPUFORM_APPI_TOKEN_URL. A minute without an "ok" row
# sends nothing (autoscale sees no point from this VM). A failed post is not retried later: an
# old utilisation is no use to autoscale.
#
# Python 3 standard library only (every Ubuntu image has python3: cloud-init runs on it).
# Environment (tests): GPUFORM_GPU_LOG_DIR, GPUFORM_GPU_STATE_DIR, GPUFORM_IMDS_FILE, GPUFORM_JOBS_FILE,
# GPUFORM_NOW (ISO 8601 UTC), GPUFORM_PCI_DIR, GPUFORM_ROCM_DIR.
import datetime
import glob
import http.server
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

QUERY = (
    "timestamp,index,uuid,name,utilization.gpu,memory.used,memory.total,temperature.gpu,"
    "power.draw,ecc.errors.uncorrected.volatile.total,driver_version"
)
LOG_DIR = os.environ.get("GPUFORM_GPU_LOG_DIR", "/var/log/gpuform")
STATE_DIR = os.environ.get("GPUFORM_GPU_STATE_DIR", "/run/gpuform")
# The workload (or whatever supervises it) may write the number of jobs it runs here, one integer.
JOBS_FILE = os.environ.get("GPUFORM_JOBS_FILE", "/run/gpuform/jobs")
KEEP_DAYS = 2
XID = re.compile(r"NVRM: Xid \([^)]*\): (\d+)")


def now():
    fixed = os.environ.get("GPUFORM_NOW")
    if fixed:
        return datetime.datetime.strptime(fixed, "%Y-%m-%dT%H:%M:%SZ").replace(
            tzinfo=datetime.timezone.utc
        )
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)


def run(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        return p.returncode, p.stdout, p.stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        return 127, "", str(e)


def num(v):
    """A number from nvidia-smi's CSV, or None for [N/A], [Not Supported], [Unknown Error]."""
    v = v.strip()
    try:
        return float(v)
    except ValueError:
        return None


def integer(v):
    n = num(v)
    return None if n is None else int(n)


def imds():
    """Priority (Spot/Regular) and VM id from the instance metadata service, cached per boot."""
    cache = os.path.join(STATE_DIR, "imds.json")
    src = os.environ.get("GPUFORM_IMDS_FILE")
    try:
        if src:
            with open(src) as f:
                return json.load(f)
        with open(cache) as f:
            return json.load(f)
    except (OSError, ValueError):
        pass
    url = os.environ.get("GPUFORM_IMDS_URL", "")
    if src or not url:
        return {}
    try:
        req = urllib.request.Request(url, headers={"Metadata": "true"})
        with urllib.request.urlopen(req, timeout=2) as r:
            data = json.load(r)
        with open(cache, "w") as f:
            json.dump(data, f)
        return data
    except (OSError, ValueError):
        return {}


def cuda_version():
    rc, out, _ = run(["nvidia-smi"])
    m = re.search(r"CUDA Version:\s*([0-9.]+)", out) if rc == 0 else None
    return m.group(1) if m else ""


def xid_errors(since_file):
    """Xid events in the kernel log since the previous sample: (count, "79,48")."""
    since = None
    try:
        with open(since_file) as f:
            since = f.read().strip()
    except OSError:
        pass
    cmd = ["journalctl", "-k", "-o", "cat", "--no-pager"]
    cmd += ["--since", since] if since else ["-b"]
    rc, out, _ = run(cmd)
    codes = XID.findall(out) if rc == 0 else []
    return len(codes), ",".join(sorted(set(codes), key=int))


# ---------------------------------------------------------------- AMD (ROCm)
VENDORS = ("nvidia", "amd")
PCI_DIR = os.environ.get("GPUFORM_PCI_DIR", "/sys/bus/pci/devices")
ROCM_DIR = os.environ.get("GPUFORM_ROCM_DIR", "/opt/rocm")
AMD_PCI_VENDOR = "0x1002"
# PCI base classes of a GPU: 0x03 display controller (Radeon PRO, V710), 0x12 processing
# accelerator (Instinct); the GPUs' HDMI/DP audio functions (0x04) are not GPUs
GPU_PCI_CLASSES = ("0x03", "0x12")
ROCM_SMI_ARGS = [
    "--showuse", "--showmeminfo", "vram", "--showtemp", "--showpower",
    "--showproductname", "--showuniqueid", "--showdriverversion", "--json",
]


def pci_gpus(vendor):
    """GPUs of `vendor` on the PCI bus: counted without the driver or any tool."""
    n = 0
    for dev in glob.glob(os.path.join(PCI_DIR, "*")):
        try:
            with open(os.path.join(dev, "vendor")) as f:
                v = f.read().strip().lower()
            with open(os.path.join(dev, "class")) as f:
                c = f.read().strip().lower()
        except OSError:
            continue
        if v == vendor and c.startswith(GPU_PCI_CLASSES):
            n += 1
    return n


def find_tool(name):
    """`name` on PATH, else in ROCm's bin directory (systemd's PATH has no /opt/rocm/bin)."""
    for d in os.environ.get("PATH", "").split(os.pathsep) + [os.path.join(ROCM_DIR, "bin")]:
        p = os.path.join(d, name)
        if d and os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def rocm_version():
    """The installed ROCm release (/opt/rocm/.info/version, e.g. 6.2.1-112 -> 6.2.1)."""
    try:
        with open(os.path.join(ROCM_DIR, ".info", "version")) as f:
            return f.read().strip().split("-")[0]
    except OSError:
        return ""


def load_json(out):
    """The JSON document in a tool's output, or None. Lines before it are skipped, also when
    they hold brackets themselves ("[WARNING] ..."): every [ or { is tried in turn."""
    decoder = json.JSONDecoder()
    for i, ch in enumerate(out):
        if ch not in "[{":
            continue
        try:
            doc = decoder.raw_decode(out[i:])[0]
        except ValueError:
            continue
        if isinstance(doc, (list, dict)):
            return doc
    return None


def amd_list(data):
    """amd-smi's per-GPU objects: a list (ROCm 6.x) or {"gpu_data": [...]} (later releases)."""
    if isinstance(data, dict):
        data = data.get("gpu_data")
    if not isinstance(data, list):
        return None
    return [g for g in data if isinstance(g, dict) and isinstance(g.get("gpu"), int)]


def value(v):
    """An amd-smi/rocm-smi field as a number: plain (ROCm 6.0), {"value": .., "unit": ..}
    (6.1 and later) or a string; None for "N/A" and anything else."""
    if isinstance(v, dict):
        v = v.get("value")
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str) and v.strip():
        return num(v.split()[0])
    return None


def pick(d, *paths):
    """The first of `paths` (key tuples) that holds a number."""
    for path in paths:
        v = d
        for k in path:
            v = v.get(k) if isinstance(v, dict) else None
        n = value(v)
        if n is not None:
            return n
    return None


def text(v):
    return v.strip() if isinstance(v, str) and v.strip() != "N/A" else ""


def amd_smi_rows(base, tool):
    """(rows, error message): amd-smi metric/static/list --json, one row per GPU."""
    rc, out, err = run([tool, "metric", "--json"])
    metric = amd_list(load_json(out))
    if metric is None:
        msg = (err or out).strip().splitlines()
        return [], (msg[0] if msg else "amd-smi metric exited %d" % rc)
    static = {g["gpu"]: g for g in amd_list(load_json(run([tool, "static", "--json"])[1])) or []}
    listed = {g["gpu"]: g for g in amd_list(load_json(run([tool, "list", "--json"])[1])) or []}
    rocm = rocm_version()
    rows = []
    for m in sorted(metric, key=lambda g: g["gpu"]):
        s = static.get(m["gpu"], {})
        driver = s.get("driver") if isinstance(s.get("driver"), dict) else {}
        asic = s.get("asic") if isinstance(s.get("asic"), dict) else {}
        ecc = pick(m, ("ecc", "total_uncorrectable_count"), ("ecc", "total_uncorrectable"))
        rows.append(
            dict(
                base,
                GpuIndex=m["gpu"],
                GpuUuid=text(listed.get(m["gpu"], {}).get("uuid")),
                GpuName=text(asic.get("market_name")),
                UtilizationPercent=pick(m, ("usage", "gfx_activity"), ("usage", "gfx_usage")),
                MemoryUsedMiB=pick(m, ("mem_usage", "used_vram")),
                MemoryTotalMiB=pick(m, ("mem_usage", "total_vram")),
                TemperatureC=pick(m, ("temperature", "hotspot"), ("temperature", "edge")),
                PowerDrawW=pick(
                    m,
                    ("power", "socket_power"),
                    ("power", "current_socket_power"),
                    ("power", "average_socket_power"),
                    ("power", "current_power"),
                ),
                EccUncorrected=None if ecc is None else int(ecc),
                DriverVersion=text(driver.get("version")) or text(driver.get("driver_version")),
                CudaVersion=rocm,
            )
        )
    return rows, ""


def rocm_smi_rows(base, tool):
    """(rows, error message): rocm-smi --json ({"card0": {...}, "system": {...}})."""
    rc, out, err = run([tool] + ROCM_SMI_ARGS)
    data = load_json(out)
    cards = []
    if isinstance(data, dict):
        cards = sorted(
            (int(k[4:]), v) for k, v in data.items()
            if k.startswith("card") and k[4:].isdigit() and isinstance(v, dict)
        )
    if not isinstance(data, dict):
        msg = (err or out).strip().splitlines()
        return [], (msg[0] if msg else "rocm-smi exited %d" % rc)
    system = data.get("system") if isinstance(data.get("system"), dict) else {}
    rocm = rocm_version()
    rows = []
    for index, c in cards:
        total = pick(c, ("VRAM Total Memory (B)",))
        used = pick(c, ("VRAM Total Used Memory (B)",))
        rows.append(
            dict(
                base,
                GpuIndex=index,
                GpuUuid=text(c.get("Unique ID")),
                GpuName=text(c.get("Card series") or c.get("Card Series")),
                UtilizationPercent=pick(c, ("GPU use (%)",)),
                MemoryUsedMiB=None if used is None else used / 1048576,
                MemoryTotalMiB=None if total is None else total / 1048576,
                TemperatureC=pick(
                    c, ("Temperature (Sensor junction) (C)",), ("Temperature (Sensor edge) (C)",)
                ),
                PowerDrawW=pick(
                    c,
                    ("Current Socket Graphics Package Power (W)",),
                    ("Average Graphics Package Power (W)",),
                ),
                EccUncorrected=None,
                DriverVersion=text(system.get("Driver version")),
                CudaVersion=rocm,
            )
        )
    return rows, ""


def amd_rows(base, expected):
    """One row per AMD GPU, or one health row. Xid is NVIDIA's: XidErrors/XidCodes stay empty."""
    on_bus = pci_gpus(AMD_PCI_VENDOR)
    empty = dict(base, XidErrors=None, XidCodes="")
    tool = find_tool("amd-smi")
    name = "amd-smi"
    if tool is None:
        tool = find_tool("rocm-smi")
        name = "rocm-smi"
    if tool is None:
        if on_bus < expected:
            return [
                dict(
                    empty,
                    GpuIndex=None,
                    Status="gpu-missing",
                    Healthy=False,
                    Message="%d of %d AMD GPUs on the PCI bus (no amd-smi or rocm-smi to read them)"
                    % (on_bus, expected),
                )
            ]
        # nothing can read the GPUs: reported (faults alert), not repaired (a new VM from the
        # same image would have no tool either)
        return [
            dict(
                empty,
                GpuIndex=None,
                Status="tool-missing",
                Healthy=True,
                Message="no amd-smi or rocm-smi on PATH or in %s/bin: use an image with ROCm (%d of %d AMD GPUs on the PCI bus)"
                % (ROCM_DIR, on_bus, expected),
            )
        ]
    if name == "amd-smi":
        gpus, error = amd_smi_rows(empty, tool)
        # amd-smi broken in the image (a Python dependency, a library that does not match the
        # driver) while rocm-smi still reads the GPUs: not a GPU fault, no repair
        fallback = find_tool("rocm-smi") if not gpus else None
        if fallback is not None:
            alt, alt_error = rocm_smi_rows(empty, fallback)
            if alt:
                gpus, name = alt, "rocm-smi"
            else:
                error = "%s; rocm-smi: %s" % (error or "amd-smi shows no GPU", alt_error or "no GPU")
    else:
        gpus, error = rocm_smi_rows(empty, tool)
    if not gpus:
        return [
            dict(
                empty,
                GpuIndex=None,
                Status=name + "-failed" if error else "no-gpu",
                Healthy=False,
                Message=(error or "%s shows no GPU" % name)[:500],
            )
        ]
    missing = ""
    if len(gpus) < expected:
        missing = "%s shows %d of %d GPUs" % (name, len(gpus), expected)
    elif on_bus < expected:
        missing = "%d of %d AMD GPUs on the PCI bus" % (on_bus, expected)
    for r in gpus:
        r.update(
            Status="gpu-missing" if missing else "ok",
            Healthy=not missing,
            Message=missing,
        )
    return gpus


def nvidia_rows(base, expected, since_file):
    """One row per GPU from nvidia-smi, or one health row."""
    xids, xid_codes = xid_errors(since_file)
    rc, out, err = run(["nvidia-smi", "--query-gpu=" + QUERY, "--format=csv,noheader,nounits"])
    rows = []
    if rc == 0:
        cuda = cuda_version()
        for line in out.splitlines():
            f = [c.strip() for c in line.split(",")]
            if len(f) != 11:
                continue
            rows.append(
                dict(
                    base,
                    GpuIndex=integer(f[1]),
                    GpuUuid=f[2],
                    GpuName=f[3],
                    UtilizationPercent=num(f[4]),
                    MemoryUsedMiB=num(f[5]),
                    MemoryTotalMiB=num(f[6]),
                    TemperatureC=num(f[7]),
                    PowerDrawW=num(f[8]),
                    EccUncorrected=integer(f[9]),
                    XidErrors=xids,
                    XidCodes=xid_codes,
                    DriverVersion=f[10],
                    CudaVersion=cuda,
                    Status="ok",
                    Healthy=True,
                    Message="",
                )
            )
    if rc != 0 or not rows:
        msg = (err or out).strip().splitlines()
        rows = [
            dict(
                base,
                GpuIndex=None,
                Status="nvidia-smi-failed" if rc != 0 else "no-gpu",
                Healthy=False,
                XidErrors=xids,
                XidCodes=xid_codes,
                Message=(msg[0] if msg else "nvidia-smi exited %d" % rc)[:500],
            )
        ]
    elif len(rows) < expected:
        for r in rows:
            r["Status"] = "gpu-missing"
            r["Healthy"] = False
            r["Message"] = "nvidia-smi shows %d of %d GPUs" % (len(rows), expected)
    return rows


def running_jobs():
    """The jobs the workload says it runs (JOBS_FILE, one integer), or None without one."""
    try:
        with open(JOBS_FILE) as f:
            n = int(f.read().strip())
    except (OSError, ValueError):
        return None
    return n if n >= 0 else None


def collect(expected, vendor="nvidia"):
    t = now()
    stamp = t.strftime("%Y-%m-%dT%H:%M:%SZ")
    os.makedirs(LOG_DIR, exist_ok=True)
    os.makedirs(STATE_DIR, exist_ok=True)
    meta = imds()
    base = {
        "TimeGenerated": stamp,
        "Computer": socket.gethostname(),
        "VmId": meta.get("vmId", ""),
        "Priority": meta.get("priority", "") or "Regular",
        "ExpectedGpus": expected,
        "RunningJobs": running_jobs(),
    }
    since_file = os.path.join(STATE_DIR, "xid-since")
    if vendor == "amd":
        rows = amd_rows(base, expected)
    else:
        rows = nvidia_rows(base, expected, since_file)
    path = os.path.join(LOG_DIR, "gpu-%s.json" % t.strftime("%Y%m%d"))
    with open(path, "a") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n")
    healthy = all(r["Healthy"] for r in rows)
    status = {"time": stamp, "healthy": healthy, "status": rows[0]["Status"]}
    tmp = os.path.join(STATE_DIR, "health.json.tmp")
    with open(tmp, "w") as f:
        json.dump(status, f)
    os.replace(tmp, os.path.join(STATE_DIR, "health.json"))
    if vendor != "amd":
        with open(since_file, "w") as f:
            f.write(t.strftime("%Y-%m-%d %H:%M:%S UTC"))
    # the Logs Ingestion path sends the new lines itself (the agent reads them otherwise); a
    # failed upload is retried with the next sample and does not make the VM unhealthy
    ingest()
    # the serving pool's scale metric (a failure is logged, the VM stays healthy)
    send_metric(rows, stamp)
    # files older than KEEP_DAYS are gone
    cutoff = (t - datetime.timedelta(days=KEEP_DAYS)).strftime("%Y%m%d")
    for old in glob.glob(os.path.join(LOG_DIR, "gpu-*.json")):
        day = os.path.basename(old)[4:12]
        if day.isdigit() and day < cutoff:
            os.remove(old)
    return 0 if healthy else 1


# ---------------------------------------------------------------- Logs Ingestion API
INGEST_KEYS = ("ENDPOINT", "ROUTE", "DCR", "STREAM", "API_VERSION", "AUDIENCE", "TOKEN_URL",
               "MAX_BYTES")
# attempts per call on 429/5xx/no answer, and the longest wait the collector honours (it runs
# once a minute; what is not sent now goes with the next sample)
ATTEMPTS = 4
MAX_WAIT = 20
# calls per run at most (a backlog of a day drains over a few runs)
MAX_CALLS = 30


def ingest_config():
    c = {k: os.environ.get("GPUFORM_INGEST_" + k, "") for k in INGEST_KEYS}
    if not all(c.values()) or "@@" in c["ENDPOINT"] + c["DCR"]:
        return None
    c["CLIENT_ID"] = os.environ.get("GPUFORM_INGEST_CLIENT_ID", "")
    if "@@" in c["CLIENT_ID"]:
        c["CLIENT_ID"] = ""
    try:
        c["MAX_BYTES"] = int(c["MAX_BYTES"])
    except ValueError:
        return None
    return c


def call(req, timeout=30):
    """(status, headers, body); status 0 when nothing answered."""
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()
    except (OSError, ValueError) as e:
        return 0, {}, str(e).encode()


def token(c):
    """A token for the pool's identity from the instance metadata service, or (None, why)."""
    q = {"resource": c["AUDIENCE"]}
    if c["CLIENT_ID"]:
        q["client_id"] = c["CLIENT_ID"]
    sep = "&" if "?" in c["TOKEN_URL"] else "?"
    req = urllib.request.Request(
        c["TOKEN_URL"] + sep + urllib.parse.urlencode(q), headers={"Metadata": "true"}
    )
    code, _, body = call(req, timeout=10)
    if code == 200:
        try:
            return json.loads(body)["access_token"], ""
        except (ValueError, KeyError, TypeError):
            pass
    return None, "token: HTTP %d %s" % (code, body[:200].decode("utf-8", "replace"))


def wait_after(code, headers, attempt):
    """Seconds to wait before another attempt: Retry-After when the answer has one."""
    try:
        ra = int(headers.get("Retry-After") or "")
    except (ValueError, TypeError, AttributeError):
        ra = None
    return min(MAX_WAIT, ra if ra is not None and ra >= 0 else 2 ** attempt)


def post(c, tok, body):
    """(ok, message): one call, retried on 429/5xx/no answer."""
    route = (c["ROUTE"].replace("{ruleId}", urllib.parse.quote(c["DCR"]))
             .replace("{stream}", urllib.parse.quote(c["STREAM"])))
    url = "%s%s?%s" % (
        c["ENDPOINT"].rstrip("/"), route,
        urllib.parse.urlencode({"api-version": c["API_VERSION"]}),
    )
    return post_url(url, tok, body)


def post_url(url, tok, body):
    """(ok, message): one POST of a JSON body, retried on 429/5xx/no answer."""
    msg = ""
    for attempt in range(ATTEMPTS):
        req = urllib.request.Request(url, data=body, method="POST", headers={
            "Authorization": "Bearer " + tok,
            "Content-Type": "application/json",
            "x-ms-client-request-id": str(uuid.uuid4()),
        })
        code, headers, answer = call(req)
        if 200 <= code < 300:
            return True, ""
        msg = "HTTP %d %s" % (code, answer[:300].decode("utf-8", "replace"))
        if code != 429 and code < 500 and code != 0:
            return False, msg
        if attempt + 1 < ATTEMPTS:
            time.sleep(wait_after(code, headers, attempt))
    return False, msg


def pending(cursor):
    """(file, end offset, row) for every complete line after the cursor, oldest file first."""
    files = sorted(glob.glob(os.path.join(LOG_DIR, "gpu-*.json")))
    out = []
    for path in files:
        name = os.path.basename(path)
        if cursor.get("file") and name < cursor["file"]:
            continue
        start = cursor.get("offset", 0) if name == cursor.get("file") else 0
        with open(path, "rb") as f:
            f.seek(start)
            pos = start
            for line in f:
                if not line.endswith(b"\n"):
                    break
                pos += len(line)
                try:
                    out.append((name, pos, json.loads(line)))
                except ValueError:
                    continue
    return out


def batches(rows, limit):
    """Runs of rows whose JSON array stays within `limit` bytes."""
    batch, size = [], 2
    for r in rows:
        n = len(json.dumps(r[2], separators=(",", ":")).encode()) + 1
        if batch and size + n > limit:
            yield batch
            batch, size = [], 2
        if n + 2 > limit:
            continue
        batch.append(r)
        size += n
    if batch:
        yield batch


def ingest():
    """Send the rows not yet sent; the cursor (file, offset) moves past each accepted call."""
    c = ingest_config()
    if c is None:
        return 0
    state = os.path.join(STATE_DIR, "ingest.json")
    try:
        with open(state) as f:
            cursor = json.load(f)
    except (OSError, ValueError):
        cursor = {}
    rows = pending(cursor)
    if not rows:
        return 0
    tok, why = token(c)
    result = {"time": now().strftime("%Y-%m-%dT%H:%M:%SZ"), "ok": True, "message": ""}
    if tok is None:
        result.update(ok=False, message=why)
    else:
        for i, b in enumerate(batches(rows, c["MAX_BYTES"])):
            if i >= MAX_CALLS:
                break
            body = json.dumps([r[2] for r in b], separators=(",", ":")).encode()
            ok, msg = post(c, tok, body)
            if not ok:
                result.update(ok=False, message=msg)
                break
            cursor = {"file": b[-1][0], "offset": b[-1][1]}
    cursor.update(last=result)
    tmp = state + ".tmp"
    with open(tmp, "w") as f:
        json.dump(cursor, f)
    os.replace(tmp, state)
    if not result["ok"]:
        sys.stderr.write("gpuform-gpu: logs ingestion: %s\n" % result["message"])
    return 0 if result["ok"] else 1


# ---------------------------------------------------------------- Application Insights metric
APPI_KEYS = ("CONNECTION", "METRIC", "ROUTE", "AUDIENCE", "TOKEN_URL")
# the track protocol's metric item (Application Insights data-plane REST spec v2.1)
METRIC_ENVELOPE = "Microsoft.ApplicationInsights.Metric"
METRIC_BASE_TYPE = "MetricData"


def appi_config():
    """The metric's settings, or None when the pool does not scale on GPU utilisation."""
    c = {k: os.environ.get("GPUFORM_APPI_" + k, "") for k in APPI_KEYS}
    if not all(c.values()) or "@@" in c["CONNECTION"]:
        return None
    parts = dict(p.split("=", 1) for p in c["CONNECTION"].split(";") if "=" in p)
    c["IKEY"] = parts.get("InstrumentationKey", "").strip()
    c["ENDPOINT"] = parts.get("IngestionEndpoint", "").strip()
    if not c["IKEY"] or "://" not in c["ENDPOINT"]:
        return None
    cid = os.environ.get("GPUFORM_APPI_CLIENT_ID", "")
    c["CLIENT_ID"] = "" if "@@" in cid else cid
    return c


def utilization(rows):
    """Mean utilisation (percent) over the GPUs that answered, or None."""
    vals = [
        r["UtilizationPercent"] for r in rows
        if r.get("Status") == "ok" and isinstance(r.get("UtilizationPercent"), (int, float))
    ]
    return sum(vals) / len(vals) if vals else None


def metric_item(c, value, stamp):
    """One metric item of the track protocol; no `ns`: the default custom-metric namespace."""
    return {
        "name": METRIC_ENVELOPE,
        "time": stamp,
        "iKey": c["IKEY"],
        "tags": {"ai.cloud.roleInstance": socket.gethostname()},
        "data": {
            "baseType": METRIC_BASE_TYPE,
            "baseData": {"ver": 2, "metrics": [{"name": c["METRIC"], "value": round(value, 2)}]},
        },
    }


def send_metric(rows, stamp):
    """Post this minute's GPU utilisation; 0 when sent or nothing to send, 1 on failure."""
    c = appi_config()
    if c is None:
        return 0
    value = utilization(rows)
    if value is None:
        return 0
    tok, why = token({"AUDIENCE": c["AUDIENCE"], "CLIENT_ID": c["CLIENT_ID"], "TOKEN_URL": c["TOKEN_URL"]})
    if tok is None:
        ok, msg = False, why
    else:
        body = json.dumps([metric_item(c, value, stamp)], separators=(",", ":")).encode()
        ok, msg = post_url(c["ENDPOINT"].rstrip("/") + "/" + c["ROUTE"], tok, body)
    if not ok:
        sys.stderr.write("gpuform-gpu: gpu utilization metric: %s\n" % msg)
        return 1
    return 0


def health():
    """(HTTP status, rich health state) from the last sample; stale after 5 minutes."""
    try:
        with open(os.path.join(STATE_DIR, "health.json")) as f:
            s = json.load(f)
        at = datetime.datetime.strptime(s["time"], "%Y-%m-%dT%H:%M:%SZ").replace(
            tzinfo=datetime.timezone.utc
        )
        fresh = (now() - at).total_seconds() < 300
        if s.get("healthy") and fresh:
            return 200, "Healthy"
    except (OSError, ValueError, KeyError):
        pass
    # 200 with the state: the Application Health extension reads a non-2xx answer as Unknown
    return 200, "Unhealthy"


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        code, state = health()
        body = json.dumps({"ApplicationHealthState": state}).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main(argv):
    if 2 <= len(argv) <= 4 and argv[1] == "collect":
        expected = int(argv[2]) if len(argv) > 2 else 1
        vendor = argv[3] if len(argv) > 3 else "nvidia"
        if vendor in VENDORS:
            return collect(expected, vendor)
    if len(argv) == 3 and argv[1] == "serve":
        server = http.server.HTTPServer(("127.0.0.1", int(argv[2])), Handler)
        server.serve_forever()
        return 0
    if len(argv) == 2 and argv[1] == "health":
        _, state = health()
        print(state)
        return 0 if state == "Healthy" else 1
    sys.stderr.write("usage: gpuform-gpu collect EXPECTED_GPUS [nvidia|amd] | serve PORT | health\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
