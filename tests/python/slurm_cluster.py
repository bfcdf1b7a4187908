"""A single-node Slurm cluster for one test, from Debian's slurm-wlm and munge: munged, slurmctld
and slurmd run as root in the foreground, with their key, sockets, state, spool and logs under a
folder of the test's, on ports of their own, and stop by their pids however the test ends."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

DAEMONS = ("munged", "slurmctld", "slurmd")
# The recipe's array tasks ask for 8 CPUs and 32 GB each: the node declares enough for two at
# once (config_overrides makes slurmd take the declared figures, not the machine's).
NODE_CPUS = 16
NODE_MEMORY_MB = 65536


@dataclass
class SlurmCluster:
    folder: Path
    conf: Path
    processes: dict[str, subprocess.Popen[bytes]]

    def env(self, base: dict[str, str]) -> dict[str, str]:
        """`base` with the client commands (sbatch, squeue, scontrol) pointed at this cluster."""
        return {**base, "SLURM_CONF": str(self.conf)}

    def job_state(self, job: str) -> str:
        """JobState of a job (of its first array task for an array), '' once Slurm forgot it."""
        done = subprocess.run(
            ["scontrol", "-o", "show", "job", job],
            capture_output=True, text=True, env=self.env(dict(os.environ)), check=False,
        )  # fmt: skip
        states = [w.split("=", 1)[1] for w in done.stdout.split() if w.startswith("JobState=")]
        return states[0] if states else ""

    def logs(self) -> str:
        """The daemons' logs, for a failing test's message."""
        parts = []
        for log in sorted(self.folder.glob("*.log")):
            parts.append(f"--- {log.name}\n{log.read_text(errors='replace')[-3000:]}")
        return "\n".join(parts)


def missing_programs() -> list[str]:
    return [p for p in (*DAEMONS, "sbatch", "scontrol") if shutil.which(p) is None]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _config(folder: Path, host: str) -> str:
    return f"""ClusterName=capmaptest
SlurmctldHost={host}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={folder}/munge.socket
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
StateSaveLocation={folder}/state
SlurmdSpoolDir={folder}/spool
SlurmctldPidFile={folder}/slurmctld.pid
SlurmdPidFile={folder}/slurmd.pid
SlurmctldLogFile={folder}/slurmctld.log
SlurmdLogFile={folder}/slurmd.log
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName={host} CPUs={NODE_CPUS} RealMemory={NODE_MEMORY_MB} State=UNKNOWN
PartitionName=capmap Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""


def _wait_for_node(cluster: SlurmCluster, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for name, process in cluster.processes.items():
            if process.poll() is not None:
                raise RuntimeError(f"{name} exited with {process.returncode}\n{cluster.logs()}")
        done = subprocess.run(
            ["sinfo", "-h", "-o", "%T"],
            capture_output=True, text=True, env=cluster.env(dict(os.environ)), check=False,
        )  # fmt: skip
        if done.returncode == 0 and done.stdout.strip() == "idle":
            return
        time.sleep(0.5)
    raise RuntimeError(f"the Slurm node did not come up in {seconds:.0f} s\n{cluster.logs()}")


def _stop(processes: dict[str, subprocess.Popen[bytes]]) -> None:
    # slurmd first, so that no job step starts while the controller goes.
    for name in reversed(list(processes)):
        process = processes[name]
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for process in processes.values():
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def slurm_cluster() -> Iterator[SlurmCluster]:
    # munged checks that every folder above its socket lets others through, so the folder is
    # made under the system's temporary folder rather than pytest's private one.
    folder = Path(tempfile.mkdtemp(prefix="capmap-slurm-"))
    processes: dict[str, subprocess.Popen[bytes]] = {}
    env = dict(os.environ)
    try:
        folder.chmod(0o755)
        for sub in ("state", "spool"):
            (folder / sub).mkdir()
        key = folder / "munge.key"
        key.write_bytes(secrets.token_bytes(1024))
        key.chmod(0o400)
        host = socket.gethostname().split(".")[0]
        conf = folder / "slurm.conf"
        conf.write_text(_config(folder, host))
        env["SLURM_CONF"] = str(conf)
        munged = [
            "munged", "--foreground", "--force", f"--socket={folder}/munge.socket",
            f"--key-file={key}", f"--log-file={folder}/munged.log",
            f"--pid-file={folder}/munged.pid", f"--seed-file={folder}/munged.seed",
        ]  # fmt: skip
        commands = {
            "munged": munged,
            "slurmctld": ["slurmctld", "-D", "-i", "-f", str(conf)],
            "slurmd": ["slurmd", "-D", "-f", str(conf)],
        }
        for name in DAEMONS:
            out = (folder / f"{name}.out.log").open("wb")
            processes[name] = subprocess.Popen(commands[name], env=env, stdout=out, stderr=subprocess.STDOUT)
            if name == "munged":
                deadline = time.monotonic() + 20
                while not (folder / "munge.socket").exists() and time.monotonic() < deadline:
                    time.sleep(0.1)
        cluster = SlurmCluster(folder, conf, processes)
        _wait_for_node(cluster, 180)
        yield cluster
    finally:
        if processes.get("slurmctld") is not None and processes["slurmctld"].poll() is None:
            # Jobs still queued or running (a failed test) go before the daemons do.
            subprocess.run(["scancel", "--full", "--user", "root"], env=env, capture_output=True, check=False)
        _stop(processes)
        shutil.rmtree(folder, ignore_errors=True)
