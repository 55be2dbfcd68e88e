"""Run-wide settings and resources: which server binary and model, user arguments, temp dirs.

Settings come from environment variables and behave userdata (``-D name=value``); userdata wins.

=========================  ===========================  ======================================================
userdata                   environment                  meaning
=========================  ===========================  ======================================================
server_args                LLAMA_SERVER_ARGS            extra llama-server arguments, e.g. "--threads 2"
server_threads             LLAMA_BDD_SERVER_THREADS     --threads for every server (parallel workers set it)
reuse_servers              LLAMA_BDD_REUSE_SERVERS      "no" starts a fresh server for every scenario
known_bugs                 LLAMA_BDD_KNOWN_BUGS         "run" runs the @known_bug scenarios instead of skipping them
fault                      LLAMA_BDD_FAULT              make every server lie: see llama_bdd.harness.fault_proxy
server_url                 LLAMA_BDD_SERVER_URL         test an already-running server; start none
preserve                   LLAMA_BDD_PRESERVE           "failed" keeps temp dirs of failed scenarios, "all" all
workdir                    LLAMA_BDD_WORKDIR            where per-scenario temp dirs are made
start_timeout              LLAMA_BDD_START_TIMEOUT      seconds a server may take to become healthy (120)
model_tags                 LLAMA_BDD_MODEL_TAGS         model tags the default model satisfies (comma list)
debug                      DEBUG=ON                     start servers with --verbose
=========================  ===========================  ======================================================

``LLAMA_SERVER_BIN_PATH`` selects the binary and ``LLAMA_BDD_MODEL_PATH`` the default model; both default
to the embedded default (see ``llama_bdd.harness.provision``).
"""

from __future__ import annotations

import atexit
import os
import shlex
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from llama_bdd.harness import provision
from llama_bdd.harness.capabilities import Capabilities, capabilities_of
from llama_bdd.harness.fault_proxy import Fault, FaultProxy, parse_faults, start_fault_proxy
from llama_bdd.harness.http import BackgroundLoop
from llama_bdd.harness.launch import Flag, flatten_params, redact_args
from llama_bdd.harness.pool import ServerPool



@dataclass
class Suite:
    """What every scenario of one run shares."""

    binary: Path | None
    capabilities: Capabilities | None
    default_model: Path | None
    user_args: list[str]
    external_url: str | None
    preserve: str
    workdir: Path
    start_timeout: float
    model_tags: frozenset[str]
    debug: bool
    server_threads: int | None = None
    reuse_servers: bool = True
    run_known_bugs: bool = False
    loop: BackgroundLoop = field(default_factory=BackgroundLoop)
    pool: ServerPool = field(default_factory=ServerPool)
    faults: list[Fault] = field(default_factory=list)  # lies told by a proxy in front of every server
    fault_proxies: dict[str, FaultProxy] = field(default_factory=dict)  # by upstream URL
    model_facts: dict[str, Any] = field(default_factory=dict)  # client.model_facts.ModelFacts by server URL
    scenario_count: int = 0
    server_count: int = 0
    started_at: float = field(default_factory=time.monotonic)
    scenario_records: list[dict] = field(default_factory=list)  # one per scenario, for the benchmark
    skips: list = field(default_factory=list)  # reports.Skip, one per skipped scenario

    def __post_init__(self) -> None:
        # A run that dies without its after_all hook (a crash, a closed pipe) still leaves no temp dir behind,
        # unless temp dirs are to be kept.
        if self.preserve == "none":
            atexit.register(shutil.rmtree, self.workdir, True)

    @classmethod
    def from_settings(cls, userdata: Mapping[str, str], environ: Mapping[str, str] = os.environ) -> "Suite":
        def setting(name: str, env: str, default: str = "") -> str:
            return userdata.get(name) or environ.get(env) or default

        external_url = setting("server_url", "LLAMA_BDD_SERVER_URL").rstrip("/") or None
        binary = capabilities = model = None
        if external_url is None or environ.get("LLAMA_SERVER_BIN_PATH"):
            binary = provision.ensure_server_binary()
            capabilities = capabilities_of(binary, provision.cache_root() / "capabilities")
        if external_url is None:
            model = provision.ensure_default_model()
        user_args = flatten_params([environ.get("LLAMA_SERVER_ARGS", ""), userdata.get("server_args", "")])
        workdir_root = setting("workdir", "LLAMA_BDD_WORKDIR") or None
        if workdir_root:
            Path(workdir_root).mkdir(parents=True, exist_ok=True)
        default_tags = ",".join(provision.default_model_tags(environ))
        tags = setting("model_tags", "LLAMA_BDD_MODEL_TAGS", default_tags)
        return cls(
            binary=binary, capabilities=capabilities, default_model=model, user_args=user_args,
            external_url=external_url,
            preserve=setting("preserve", "LLAMA_BDD_PRESERVE", "none"),
            workdir=Path(tempfile.mkdtemp(prefix="llama-bdd-", dir=workdir_root)),
            start_timeout=float(setting("start_timeout", "LLAMA_BDD_START_TIMEOUT", "120")),
            model_tags=frozenset(t.strip() for t in tags.split(",") if t.strip()),
            debug=setting("debug", "DEBUG") in ("ON", "on", "1", "true", "yes"),
            server_threads=int(setting("server_threads", "LLAMA_BDD_SERVER_THREADS", "0")) or None,
            reuse_servers=setting("reuse_servers", "LLAMA_BDD_REUSE_SERVERS", "yes") not in ("no", "0", "false"),
            run_known_bugs=setting("known_bugs", "LLAMA_BDD_KNOWN_BUGS", "skip") == "run",
            faults=parse_faults(setting("fault", "LLAMA_BDD_FAULT")),
        )

    def injected_flags(self) -> list[Flag]:
        """Flags every server of this run gets unless the user passed them (threads sized for the workers)."""
        return [Flag("--threads", (str(self.server_threads),), required=False)] if self.server_threads else []

    def new_server_log(self) -> Path:
        """Server logs live at run level: a server may outlive the scenario that started it."""
        self.server_count += 1
        path = self.workdir / "servers" / f"server-{self.server_count:03d}.log"
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def model_dirs(self) -> list[Path]:
        return [self.default_model.parent] if self.default_model else []

    def new_scenario_dir(self, name: str) -> Path:
        self.scenario_count += 1
        slug = "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")[:48]
        path = self.workdir / f"{self.scenario_count:04d}-{slug}"
        path.mkdir(parents=True)
        return path

    def reachable_url(self, base_url: str) -> str:
        """Where scenarios talk to a server: its own URL, or a lying proxy in front of it when faults are set."""
        if not self.faults:
            return base_url
        if base_url not in self.fault_proxies:
            self.fault_proxies[base_url] = start_fault_proxy(base_url, self.faults, self.loop)
        return self.fault_proxies[base_url].base_url

    def close_fault_proxies(self) -> list[str]:
        """Stop the proxies; a line saying how many answers the faults changed (none: they proved nothing)."""
        for proxy in self.fault_proxies.values():
            self.loop.submit(proxy.stop()).result(timeout=10)
        if not self.faults:
            return []
        changed = sum(proxy.applied for proxy in self.fault_proxies.values())
        faults = "; ".join(fault.describe() for fault in self.faults)
        return [f"faults '{faults}' were active: {changed} answer(s) or stream event(s) changed"]

    def describe(self) -> str:
        if self.external_url:
            return f"external server {self.external_url}" + (f", binary {self.binary}" if self.binary else "")
        return (f"llama-server {self.binary} ({self.capabilities.version}), default model {self.default_model}, "
                f"user arguments: {shlex.join(redact_args(self.user_args)) or '(none)'}")
