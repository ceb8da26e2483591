#!/usr/bin/python3
# gpuform GPU collector (rendered by gpuform; installed by cloud-init, run by systemd).
#
#   gpuform-gpu collect  once a minute (gpuform-gpu-collect.timer): one JSON line per GPU into
#                        /var/log/gpuform/gpu-YYYYMMDD.json, read by the Azure Monitor Agent
#                        (data collection rule, logFiles/json) into the GpuTelemetry_CL table;
#                        a VM whose nvidia-smi fails, or that shows fewer GPUs than its size
#                        has, writes one health row (Status != "ok") instead.
#   gpuform-gpu serve    the health endpoint the Application Health extension probes
#                        (127.0.0.1 only): 200 {"ApplicationHealthState": "Healthy"} while the
#                        last sample is fresh and healthy, 503 "Unhealthy" otherwise.
#
# Python 3 standard library only (every Ubuntu image has python3: cloud-init runs on it).
# Environment (tests): GPUFORM_GPU_LOG_DIR, GPUFORM_GPU_STATE_DIR, GPUFORM_IMDS_FILE,
# GPUFORM_NOW (ISO 8601 UTC).
import datetime
import glob
import http.server
import json
import os
import re
import socket
import subprocess
import sys
import urllib.request

QUERY = (
    "timestamp,index,uuid,name,utilization.gpu,memory.used,memory.total,temperature.gpu,"
    "power.draw,ecc.errors.uncorrected.volatile.total,driver_version"
)
LOG_DIR = os.environ.get("GPUFORM_GPU_LOG_DIR", "/var/log/gpuform")
STATE_DIR = os.environ.get("GPUFORM_GPU_STATE_DIR", "/run/gpuform")
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
    if src:
        return {}
    try:
        req = urllib.request.Request(
            "http://169.254.169.254/metadata/instance/compute?api-version=2021-02-01",
            headers={"Metadata": "true"},
        )
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


def collect(expected):
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
    }
    since_file = os.path.join(STATE_DIR, "xid-since")
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
    with open(since_file, "w") as f:
        f.write(t.strftime("%Y-%m-%d %H:%M:%S UTC"))
    # the agent reads new lines; files older than KEEP_DAYS are gone
    cutoff = (t - datetime.timedelta(days=KEEP_DAYS)).strftime("%Y%m%d")
    for old in glob.glob(os.path.join(LOG_DIR, "gpu-*.json")):
        day = os.path.basename(old)[4:12]
        if day.isdigit() and day < cutoff:
            os.remove(old)
    return 0 if healthy else 1


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
    return 503, "Unhealthy"


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
    if len(argv) >= 2 and argv[1] == "collect":
        expected = int(argv[2]) if len(argv) > 2 else 1
        return collect(expected)
    if len(argv) == 3 and argv[1] == "serve":
        server = http.server.HTTPServer(("127.0.0.1", int(argv[2])), Handler)
        server.serve_forever()
        return 0
    if len(argv) == 2 and argv[1] == "health":
        code, state = health()
        print(state)
        return 0 if code == 200 else 1
    sys.stderr.write("usage: gpuform-gpu collect EXPECTED_GPUS | serve PORT | health\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
