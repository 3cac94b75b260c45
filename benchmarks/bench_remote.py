"""Remote-run benchmark (issue 17): a large run on a local S3 server, cold and reopened,
against reading the same run from disk.

    .venv/bin/python benchmarks/bench_remote.py [--tasks 10000] [--k 1] [--trajectory-kb 2]
        [--rounds 3] [--workdir /tmp/inspector-bench-remote]
        [--floor ../shared/bench/read_floor.py]

Generates the run once (fixtures/make_large_run.py, no missing attempts, kept in --workdir), starts moto's S3
server on 127.0.0.1 (a free port, in this process) and uploads the run, then times in fresh
processes, in --rounds interleaved rounds:

  read floor    read_floor.py RUN --parser orjson: parse every task.json and result.json
                from disk, nothing else (the least any reader can spend on the local run);

and `inspector report RUN --json`:

  disk          the local run, task/report cache off (INSPECTOR_CACHE=0);
  disk cached   the local run, cache on, after one warming run;
  s3 cold       the URL with an empty user cache (XDG_CACHE_HOME and HOME pointed at an
                empty folder): list, fetch every object, read (in the
                first --cold-rounds rounds: moto serves some tens of requests a second here);
                its mirror is then the one reopened below;
  s3 reopen     the URL again (mirror up to date: one listing, no transfer), cache off;
  s3 cached     the same with the task/report cache on.

and, as floors for the server's share, s3fs listing the prefix (list floor) and, with
--fetch-floor, listing plus fetching every object (fetch floor), writing and parsing nothing; and prints the
median wall time of each, its ratios to the read floor's and to `disk`'s medians of the
same run, and the spread. The machine is shared: only the ratios measured together mean
anything. The server is stopped at the end, also on failure.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
READ_FLOOR = ROOT.parent / "shared" / "bench" / "read_floor.py"
BUCKET = "bench"


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {proc.stderr.decode()[-500:]}")
    return wall


# The least any client must do: list the prefix, and (cold) fetch every object, with
# s3fs at the same concurrency as the inspector; nothing is written or parsed.
FLOOR = r"""
import sys, fsspec
fs, root = fsspec.core.url_to_fs(sys.argv[1])
names = sorted(fs.find(root))
if sys.argv[2] == "fetch":
    fs.cat(names, batch_size=32)
"""


def upload(endpoint: str, run: Path, prefix: str) -> int:
    """Create the bucket over HTTP, then put the objects straight into the in-process moto
    backend the server serves (uploading 10^4+ objects over HTTP would dominate the run)."""
    import boto3
    from moto.core.models import DEFAULT_ACCOUNT_ID
    from moto.s3.models import s3_backends

    boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(Bucket=BUCKET)
    backend = s3_backends[DEFAULT_ACCOUNT_ID]["aws"]
    files = [p for p in run.rglob("*") if p.is_file()]
    for path in files:
        backend.put_object(
            BUCKET, f"{prefix}/{path.relative_to(run).as_posix()}", path.read_bytes()
        )
    return len(files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--k", type=int, default=1)
    parser.add_argument("--trajectory-kb", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--cold-rounds", type=int, default=1, help="rounds that also time a cold open"
    )
    parser.add_argument(
        "--fetch-floor", action="store_true",
        help="also time s3fs fetching every object (as long again as a cold open)",
    )  # fmt: skip
    parser.add_argument(
        "--workdir", type=Path, default=Path(tempfile.gettempdir()) / "inspector-bench-remote"
    )
    parser.add_argument("--floor", type=Path, default=READ_FLOOR, help="read_floor.py")
    args = parser.parse_args()
    if not args.floor.is_file():
        raise SystemExit(f"{args.floor}: no read_floor.py (pass --floor)")

    for name in ("AWS_PROFILE", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        os.environ.pop(name, None)
    os.environ.update(AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench",
                      AWS_DEFAULT_REGION="us-east-1", AWS_EC2_METADATA_DISABLED="true",
                      AWS_CONFIG_FILE="/nonexistent", AWS_SHARED_CREDENTIALS_FILE="/nonexistent")  # fmt: skip
    run = args.workdir / f"run_{args.tasks}_k{args.k}_t{args.trajectory_kb}_m0"
    if not run.is_dir():
        args.workdir.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(ROOT / "fixtures" / "make_large_run.py"), "--out",
                        str(run), "--tasks", str(args.tasks), "--k", str(args.k),
                        "--trajectory-kb", str(args.trajectory_kb), "--missing-rate", "0"],
                       check=True)  # fmt: skip

    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        started = time.perf_counter()
        objects = upload(endpoint, run, "results/run")
        print(f"{args.tasks} tasks, k={args.k}: {objects} objects uploaded in "
              f"{time.perf_counter() - started:.1f} s to {endpoint}")  # fmt: skip
        url = f"s3://{BUCKET}/results/run"
        inspector = [sys.executable, "-m", "inspector", "report"]
        caches = args.workdir / "caches"
        base = dict(os.environ, FSSPEC_S3_ENDPOINT_URL=endpoint, AWS_ENDPOINT_URL=endpoint)

        def env(cache: str, on: bool) -> dict[str, str]:
            home = caches / cache
            return dict(base, XDG_CACHE_HOME=str(home / ".cache"), HOME=str(home),
                        INSPECTOR_CACHE="1" if on else "0")  # fmt: skip

        shutil.rmtree(caches, ignore_errors=True)
        timed([*inspector, str(run), "--json"], env("disk", True))  # warm the disk cache
        read_floor = [sys.executable, str(args.floor), str(run), "--parser", "orjson"]
        names = ("read floor", "disk", "disk cached", "s3 cold", "fetch floor", "s3 reopen", "s3 cached",
                 "list floor")  # fmt: skip
        times: dict[str, list[float]] = {name: [] for name in names}
        for index in range(args.rounds):
            times["read floor"].append(timed(read_floor, base))
            times["disk"].append(timed([*inspector, str(run), "--json"], env("disk", False)))
            if index < args.cold_rounds:
                shutil.rmtree(caches / "cold", ignore_errors=True)
                times["s3 cold"].append(timed([*inspector, url, "--json"], env("cold", False)))
                if args.fetch_floor:
                    times["fetch floor"].append(
                        timed([sys.executable, "-c", FLOOR, url, "fetch"], base)
                    )
            if index == 0:  # the reopened mirror: the cold round's, then its caches warmed
                shutil.copytree(caches / "cold", caches / "s3")
                timed([*inspector, url, "--json"], env("s3", True))
            times["list floor"].append(timed([sys.executable, "-c", FLOOR, url, "list"], base))
            times["disk cached"].append(timed([*inspector, str(run), "--json"], env("disk", True)))
            times["s3 reopen"].append(timed([*inspector, url, "--json"], env("s3", False)))
            times["s3 cached"].append(timed([*inspector, url, "--json"], env("s3", True)))
    finally:
        server.stop()
    floor, disk = statistics.median(times["read floor"]), statistics.median(times["disk"])
    print(f"{'':12} {'median s':>9} {'x floor':>8} {'x disk':>7}  rounds  spread (min..max s)")
    for name, values in times.items():
        if not values:
            continue
        median = statistics.median(values)
        print(
            f"{name:12} {median:9.2f} {median / floor:8.2f} {median / disk:7.2f}  "
            f"{len(values):6}  {min(values):.2f}..{max(values):.2f}"
        )


if __name__ == "__main__":
    main()
