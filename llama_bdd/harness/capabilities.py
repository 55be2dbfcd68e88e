"""What a llama-server binary can do, read from its own ``--help`` and ``--version``.

A flag the binary does not list is never passed to it (an unknown flag makes llama-server exit), and a
scenario that needs one is skipped with the reason. The parse is cached per binary path + mtime + size,
in memory and on disk, so each binary's ``--help`` runs once.

The build number may be unknown: a build from a source tarball (no git, no ``LLAMA_BUILD_NUMBER``) says
``version: 0 (unknown)``, and that 0 is no build number. Unknown is ``None``, never 0: a version-gated
expectation asks ``build_at_least(n)`` and must handle its ``None`` (fall back to what the server shows,
or skip with the reason).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .errors import HarnessError

# An option line starts at the left margin with a dash; its spec ends at the first run of 2+ spaces.
_OPTION_LINE = re.compile(r"^(-[^\s].*?)(?:\s{2,}|$)")
_FLAG = re.compile(r"^(--?[A-Za-z0-9][\w.-]*)")
# the value of a flag with a fixed set: "[a|b|c]", "{a,b,c}" or "<a|b>" take one; "a,b,c" takes a comma-separated list
_ONE_OF = re.compile(r"^[\[{<]([\w.-]+(?:[|,][\w.-]+)+)[\]}>]$")
_LIST_OF = re.compile(r"^([\w.-]+(?:,[\w.-]+)+)$")
# bumped when the parse learns more, so parses cached by an older suite are not reused
_CACHE_FORMAT = 2
# "version: 0.6.0-dev (build 11434, commit abc)" today; "version: 4000 (abc)" in older builds
_VERSION = (re.compile(r"version:.*\(build (\d+), commit ([^)]*)\)"), re.compile(r"version:\s*(\d+)\s*\(([^)]*)\)"))
# what build-info.cmake falls back to without git and without LLAMA_BUILD_NUMBER / LLAMA_BUILD_COMMIT
_NO_BUILD_NUMBER = 0
_NO_COMMIT = "unknown"


def _known_build(number: int | None) -> int | None:
    return None if number is None or number <= _NO_BUILD_NUMBER else number


def _known_commit(commit: str | None) -> str | None:
    commit = (commit or "").strip()
    return None if not commit or commit == _NO_COMMIT else commit


@dataclass(frozen=True)
class Capabilities:
    """The flags one llama-server binary accepts, grouped with their aliases, and its build number."""

    flags: frozenset[str]
    # every spelling of a flag -> the group's canonical (first long) spelling
    canonical: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    build_number: int | None = None
    build_commit: str | None = None
    # canonical flag -> the values its --help offers, for flags with a fixed set
    values: dict[str, tuple[str, ...]] = field(default_factory=dict, hash=False, compare=False)
    # canonical flags whose value is a comma-separated list of those values
    lists: frozenset[str] = frozenset()

    def supports(self, flag: str) -> bool:
        return flag.split("=", 1)[0] in self.flags

    def canonical_flag(self, flag: str) -> str:
        """``-c`` -> ``--ctx-size``; a flag unknown to the binary is its own canonical name."""
        name = flag.split("=", 1)[0]
        return self.canonical.get(name, name)

    def choices(self, flag: str) -> tuple[str, ...] | None:
        """The values ``--help`` offers for ``flag`` (None when it names no fixed set)."""
        return self.values.get(self.canonical_flag(flag))

    def refuses_value(self, flag: str, value: str) -> str | None:
        """Why ``flag value`` is not among what this binary's ``--help`` offers (None when it is, or when
        the help names no fixed set)."""
        offered = self.choices(flag)
        if offered is None:
            return None
        parts = value.split(",")
        takes_list = self.canonical_flag(flag) in self.lists
        shown = f"{flag} {','.join(offered) if takes_list else '[' + '|'.join(offered) + ']'}"
        if len(parts) > 1 and not takes_list:
            return f"llama-server {self.version} takes one value for {flag} (its --help: {shown}), not '{value}'"
        unknown = [part for part in parts if part not in offered]
        if unknown:
            return f"llama-server {self.version} offers no {', '.join(unknown)} for {flag} (its --help: {shown})"
        return None

    def missing(self, flags: list[str]) -> list[str]:
        return [flag for flag in flags if not self.supports(flag)]

    def build_at_least(self, build: int) -> bool | None:
        """Whether this is build ``build`` or later; None when the build number is unknown."""
        return None if self.build_number is None else self.build_number >= build

    def build_at_most(self, build: int) -> bool | None:
        """Whether this is build ``build`` or earlier; None when the build number is unknown."""
        return None if self.build_number is None else self.build_number <= build

    @property
    def version(self) -> str:
        if self.build_number is None:
            return "unknown build" + (f" ({self.build_commit})" if self.build_commit else "")
        return f"b{self.build_number}" + (f" ({self.build_commit})" if self.build_commit else "")

    @classmethod
    def from_help(cls, help_text: str, version_text: str = "") -> "Capabilities":
        canonical: dict[str, str] = {}
        values: dict[str, tuple[str, ...]] = {}
        lists: set[str] = set()
        for line in help_text.splitlines():
            # "-c,    --ctx-size N" pads after the first comma; close that gap before finding the spec's end
            match = _OPTION_LINE.match(re.sub(r",\s+", ", ", line))
            if not match:
                continue
            spellings = []
            for part in match.group(1).split(","):
                flag = _FLAG.match(part.strip())
                if flag:
                    spellings.append(flag.group(1))
            if not spellings:
                continue
            longs = [s for s in spellings if s.startswith("--")]
            group_name = longs[0] if longs else spellings[0]
            for spelling in spellings:
                canonical.setdefault(spelling, group_name)
            argument = match.group(1).rsplit(spellings[-1], 1)[-1].strip()
            one_of, list_of = _ONE_OF.match(argument), _LIST_OF.match(argument)
            offered = tuple(re.split(r"[|,]", (one_of or list_of).group(1))) if one_of or list_of else ()
            # "dev1,dev2,.." and "TOOL1,TOOL2,..." are placeholders, not a fixed set
            if offered and not {"..", "..."} & set(offered) and group_name not in values:
                values[group_name] = offered
                if list_of:
                    lists.add(group_name)
        build_number = build_commit = None
        version = next(filter(None, (pattern.search(version_text) for pattern in _VERSION)), None)
        if version:
            build_number, build_commit = _known_build(int(version.group(1))), _known_commit(version.group(2))
        return cls(flags=frozenset(canonical), canonical=canonical, build_number=build_number,
                   build_commit=build_commit, values=values, lists=frozenset(lists))

    def to_json(self) -> str:
        return json.dumps({"canonical": self.canonical, "build_number": self.build_number,
                           "build_commit": self.build_commit, "values": self.values,
                           "lists": sorted(self.lists)}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "Capabilities":
        data = json.loads(text)
        # parses cached before 0 meant unknown may still hold a 0
        return cls(flags=frozenset(data["canonical"]), canonical=data["canonical"],
                   build_number=_known_build(data["build_number"]), build_commit=_known_commit(data["build_commit"]),
                   values={flag: tuple(offered) for flag, offered in data.get("values", {}).items()},
                   lists=frozenset(data.get("lists", ())))


_MEMORY: dict[str, Capabilities] = {}


def _binary_key(binary: Path) -> str:
    info = binary.stat()
    identity = f"{binary.resolve()}:{info.st_mtime_ns}:{info.st_size}:{_CACHE_FORMAT}"
    return hashlib.sha256(identity.encode()).hexdigest()[:24]


def _run_for_text(binary: Path, flag: str) -> str:
    try:
        result = subprocess.run([str(binary), flag], capture_output=True, text=True, timeout=60,
                                stdin=subprocess.DEVNULL, errors="replace")
    except (OSError, subprocess.TimeoutExpired) as error:
        raise HarnessError(f"Could not run '{binary} {flag}' to learn its capabilities: {error}") from error
    return result.stdout + "\n" + result.stderr


def capabilities_of(binary: Path, cache_dir: Path | None = None) -> Capabilities:
    """Capabilities of ``binary``, parsed once per binary version (path + mtime + size)."""
    key = _binary_key(binary)
    if key in _MEMORY:
        return _MEMORY[key]
    cached = cache_dir / f"{key}.json" if cache_dir else None
    if cached and cached.is_file():
        capabilities = Capabilities.from_json(cached.read_text())
    else:
        help_text = _run_for_text(binary, "--help")
        capabilities = Capabilities.from_help(help_text, _run_for_text(binary, "--version"))
        if not capabilities.flags:
            raise HarnessError(f"'{binary} --help' listed no options; is it a llama-server binary? "
                               f"It printed: {help_text.strip()[-800:]}")
        if cached:
            cached.parent.mkdir(parents=True, exist_ok=True)
            partial = cached.with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(capabilities.to_json())
            partial.replace(cached)
    _MEMORY[key] = capabilities
    return capabilities


# Capability tags: ``@requires.<name>`` skips a scenario unless the binary lists every flag named here.
REQUIREMENT_FLAGS: dict[str, tuple[str, ...]] = {
    "api_key": ("--api-key",),
    "cache_disk": ("--cache-disk", "--cache-disk-limit", "--cache-disk-write-through"),
    "cache_ram": ("--cache-ram",),
    "context_shift": ("--context-shift",),
    "cors_origins": ("--cors-origins",),
    "embeddings": ("--embedding",),
    "metrics": ("--metrics",),
    "mmproj": ("--mmproj",),
    "pooling": ("--pooling",),
    "rerank": ("--rerank",),
    "slot_save": ("--slot-save-path",),
    "slots_endpoint": ("--slots",),
    "lora": ("--lora", "--lora-scaled", "--lora-init-without-apply"),
    "ssl": ("--ssl-key-file", "--ssl-cert-file"),
    "api_key_file": ("--api-key-file",),
    "props_endpoint": ("--props",),
    "webui": ("--webui", "--path"),
    "cors_proxy": ("--ui-mcp-proxy",),
    "server_tools": ("--tools",),
    "media_path": ("--media-path",),
    "models_dir": ("--models-dir",),
    "models_preset": ("--models-preset",),
    "models_max": ("--models-max",),
    "models_autoload": ("--no-models-autoload",),
    "sleep": ("--sleep-idle-seconds",),
    "spec_draft": ("--model-draft", "--spec-type", "--spec-draft-n-max", "--spec-draft-n-min"),
    "spec_ngram": ("--spec-type", "--spec-ngram-simple-size-n", "--spec-ngram-simple-size-m"),
    "chat_template_file": ("--chat-template-file", "--chat-template"),
    "reasoning": ("--reasoning-format", "--reasoning-budget"),
}


def missing_requirement(capabilities: Capabilities | None, name: str) -> str | None:
    """Why ``@requires.<name>`` is not met (None when it is)."""
    if name not in REQUIREMENT_FLAGS:
        known = ", ".join(sorted(REQUIREMENT_FLAGS))
        raise HarnessError(f"Unknown capability tag @requires.{name}; known capabilities: {known}")
    if capabilities is None:
        return f"@requires.{name}: no llama-server binary to ask (set LLAMA_SERVER_BIN_PATH with an external server)"
    absent = capabilities.missing(list(REQUIREMENT_FLAGS[name]))
    if absent:
        return (f"@requires.{name}: llama-server {capabilities.version} does not list "
                f"{', '.join(absent)} in its --help")
    return None
